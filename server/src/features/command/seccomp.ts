/**
 * The seccomp filter of the command sandbox, handed to bubblewrap with `--seccomp`: a small
 * classic-BPF program that lets every system call through except the ones that give a file the
 * set-user-ID or set-group-ID bit or make a device node.
 *
 * Why: inside its user namespace a command is the owner of every file that belongs, on disk, to
 * the server's account — root when Coffer runs as root. Without this filter it could `chmod u+s`
 * a copy of a shell in the served folder (or create it with that mode) and leave a program that
 * any local user of the host runs as root (or as Coffer's account, with the database).
 *
 * Refused with EPERM: chmod, fchmod, fchmodat and fchmodat2 with S_ISUID or S_ISGID in the
 * mode; open, openat and creat creating a file (O_CREAT, O_TMPFILE) with those bits; mknod and
 * mknodat with those bits or of a character or block device. Refused with ENOSYS (callers fall
 * back): openat2 and io_uring, whose mode lies in memory a filter cannot read. The x32 ABI and
 * foreign architectures (other than i386 on x86-64) are not let through.
 */
import { arch } from 'node:process';

/** One rule of a system call table. */
type Rule =
  /** Refused when argument `arg` has S_ISUID or S_ISGID. */
  | { nr: number; kind: 'mode'; arg: number }
  /** As `mode`, and also when the mode's file type is a character or block device. */
  | { nr: number; kind: 'node'; arg: number }
  /** As `mode` for argument `arg`, only when argument `flags` has O_CREAT or O_TMPFILE. */
  | { nr: number; kind: 'create'; flags: number; arg: number }
  /** Always refused with ENOSYS. */
  | { nr: number; kind: 'nosys' };

interface Abi {
  /** AUDIT_ARCH_* of <linux/audit.h>. */
  audit: number;
  rules: Rule[];
  /** x86-64: system call numbers with this bit are the x32 ABI, refused as a whole. */
  x32Bit?: number;
}

/** Numbers shared by every architecture (the unified table from 424 on). */
const COMMON: Rule[] = [
  { nr: 425, kind: 'nosys' }, // io_uring_setup
  { nr: 426, kind: 'nosys' }, // io_uring_enter
  { nr: 427, kind: 'nosys' }, // io_uring_register
  { nr: 437, kind: 'nosys' }, // openat2
  { nr: 452, kind: 'mode', arg: 2 }, // fchmodat2(dirfd, path, mode, flags)
];

const X86_64: Abi = {
  audit: 0xc000003e,
  x32Bit: 0x40000000,
  rules: [
    { nr: 2, kind: 'create', flags: 1, arg: 2 }, // open(path, flags, mode)
    { nr: 85, kind: 'mode', arg: 1 }, // creat(path, mode)
    { nr: 90, kind: 'mode', arg: 1 }, // chmod(path, mode)
    { nr: 91, kind: 'mode', arg: 1 }, // fchmod(fd, mode)
    { nr: 133, kind: 'node', arg: 1 }, // mknod(path, mode, dev)
    { nr: 257, kind: 'create', flags: 2, arg: 3 }, // openat(dirfd, path, flags, mode)
    { nr: 259, kind: 'node', arg: 2 }, // mknodat(dirfd, path, mode, dev)
    { nr: 268, kind: 'mode', arg: 2 }, // fchmodat(dirfd, path, mode)
    ...COMMON,
  ],
};

/** 32-bit programs on x86-64 (int 0x80) use this table. */
const I386: Abi = {
  audit: 0x40000003,
  rules: [
    { nr: 5, kind: 'create', flags: 1, arg: 2 }, // open
    { nr: 8, kind: 'mode', arg: 1 }, // creat
    { nr: 14, kind: 'node', arg: 1 }, // mknod
    { nr: 15, kind: 'mode', arg: 1 }, // chmod
    { nr: 94, kind: 'mode', arg: 1 }, // fchmod
    { nr: 295, kind: 'create', flags: 2, arg: 3 }, // openat
    { nr: 297, kind: 'node', arg: 2 }, // mknodat
    { nr: 306, kind: 'mode', arg: 2 }, // fchmodat
    ...COMMON,
  ],
};

/** The generic table (asm-generic/unistd.h) of arm64 and riscv64: no open, creat, chmod or mknod. */
const GENERIC: Rule[] = [
  { nr: 33, kind: 'node', arg: 2 }, // mknodat
  { nr: 52, kind: 'mode', arg: 1 }, // fchmod
  { nr: 53, kind: 'mode', arg: 2 }, // fchmodat
  { nr: 56, kind: 'create', flags: 2, arg: 3 }, // openat
  ...COMMON,
];

/** The ABIs a process may use on each architecture Node reports (all little-endian). */
const ABIS: Partial<Record<string, Abi[]>> = {
  x64: [X86_64, I386],
  arm64: [{ audit: 0xc00000b7, rules: GENERIC }],
  riscv64: [{ audit: 0xc00000f3, rules: GENERIC }],
};

const S_ISUID_ISGID = 0o6000;
const S_IFMT = 0o170000;
const S_IFCHR = 0o020000;
const S_IFBLK = 0o060000;
const O_CREAT = 0o100;
const O_TMPFILE_BIT = 0o20000000; // __O_TMPFILE
const EPERM = 1;
const ENOSYS = 38;

const RET_ALLOW = 0x7fff0000;
const RET_KILL_PROCESS = 0x80000000;
const RET_ERRNO = 0x00050000;

// Classic BPF opcodes (linux/filter.h).
const LD_W_ABS = 0x20;
const ALU_AND_K = 0x54;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;

// struct seccomp_data: nr at 0, arch at 4, args[6] (u64) from 16; the low half first (little-endian).
const NR = 0;
const ARCH = 4;
const argLow = (i: number) => 16 + 8 * i;

/** A jump target: a label, or 0 for the next instruction. */
type Target = string | 0;

class Assembler {
  private readonly code: { op: number; k: number; jt: Target; jf: Target }[] = [];
  private readonly labels = new Map<string, number>();

  label(name: string): void {
    this.labels.set(name, this.code.length);
  }
  stmt(op: number, k: number): void {
    this.code.push({ op, k, jt: 0, jf: 0 });
  }
  jump(op: number, k: number, jt: Target, jf: Target): void {
    this.code.push({ op, k, jt, jf });
  }

  /** struct sock_filter[]: u16 code, u8 jt, u8 jf, u32 k, in the host's (little-endian) order. */
  bytes(): Buffer {
    const out = Buffer.alloc(this.code.length * 8);
    this.code.forEach((ins, i) => {
      const offset = (t: Target) => {
        if (t === 0) return 0;
        const at = this.labels.get(t);
        if (at === undefined || at <= i || at - i - 1 > 255) throw new Error(`seccomp: bad jump to ${t}`);
        return at - i - 1;
      };
      out.writeUInt16LE(ins.op, i * 8);
      out.writeUInt8(offset(ins.jt), i * 8 + 2);
      out.writeUInt8(offset(ins.jf), i * 8 + 3);
      out.writeUInt32LE(ins.k >>> 0, i * 8 + 4);
    });
    return out;
  }
}

/** The filter for the given ABIs (exported for the unit test, which runs it on made-up calls). */
export function buildFilter(abis: readonly Abi[]): Buffer {
  const a = new Assembler();
  a.stmt(LD_W_ABS, ARCH);
  abis.forEach((abi, i) => a.jump(JEQ_K, abi.audit, `abi${i}`, 0));
  a.stmt(RET_K, RET_KILL_PROCESS);
  abis.forEach((abi, i) => {
    a.label(`abi${i}`);
    a.stmt(LD_W_ABS, NR);
    if (abi.x32Bit !== undefined) a.jump(JGE_K, abi.x32Bit, 'enosys', 0);
    abi.rules.forEach((rule, j) => {
      const next = `abi${i}.${j}`;
      a.jump(JEQ_K, rule.nr, 0, next);
      switch (rule.kind) {
        case 'nosys':
          a.stmt(RET_K, RET_ERRNO | ENOSYS);
          break;
        case 'mode':
          a.stmt(LD_W_ABS, argLow(rule.arg));
          a.jump(JSET_K, S_ISUID_ISGID, 'eperm', 'allow');
          break;
        case 'node':
          a.stmt(LD_W_ABS, argLow(rule.arg));
          a.jump(JSET_K, S_ISUID_ISGID, 'eperm', 0);
          a.stmt(ALU_AND_K, S_IFMT);
          a.jump(JEQ_K, S_IFCHR, 'eperm', 0);
          a.jump(JEQ_K, S_IFBLK, 'eperm', 'allow');
          break;
        case 'create':
          a.stmt(LD_W_ABS, argLow(rule.flags));
          a.jump(JSET_K, O_CREAT | O_TMPFILE_BIT, 0, 'allow');
          a.stmt(LD_W_ABS, argLow(rule.arg));
          a.jump(JSET_K, S_ISUID_ISGID, 'eperm', 'allow');
          break;
      }
      a.label(next);
    });
    a.stmt(RET_K, RET_ALLOW);
  });
  a.label('allow');
  a.stmt(RET_K, RET_ALLOW);
  a.label('eperm');
  a.stmt(RET_K, RET_ERRNO | EPERM);
  a.label('enosys');
  a.stmt(RET_K, RET_ERRNO | ENOSYS);
  return a.bytes();
}

/** The ABIs of this machine, or null on an architecture the filter does not know. */
export function hostAbis(hostArch: string = arch): Abi[] | null {
  return ABIS[hostArch] ?? null;
}

export type { Abi };

import { describe, expect, it } from 'vitest';
import { buildFilter, hostAbis } from './seccomp.js';

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const ENOSYS = 0x00050026;
const KILL = 0x80000000;

const X86_64 = 0xc000003e;
const I386 = 0x40000003;
const AARCH64 = 0xc00000b7;
const ARM = 0x40000028;

/** Runs a classic-BPF seccomp program (the instructions buildFilter uses) on one system call. */
function evaluate(program: Buffer, audit: number, nr: number, args: number[] = []): number {
  const data = Buffer.alloc(64);
  data.writeInt32LE(nr, 0);
  data.writeUInt32LE(audit, 4);
  args.forEach((a, i) => data.writeBigUInt64LE(BigInt.asUintN(64, BigInt(a)), 16 + 8 * i));
  let acc = 0;
  for (let pc = 0; pc * 8 < program.length; pc++) {
    const op = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    switch (op) {
      case 0x20: acc = data.readUInt32LE(k); break; // ld [k]
      case 0x54: acc = (acc & k) >>> 0; break; // and #k
      case 0x15: pc += acc === k ? jt : jf; break; // jeq
      case 0x35: pc += acc >= k ? jt : jf; break; // jge
      case 0x45: pc += (acc & k) !== 0 ? jt : jf; break; // jset
      case 0x06: return k; // ret
      default: throw new Error(`unexpected opcode ${op}`);
    }
  }
  throw new Error('fell off the end');
}

describe('the seccomp filter on x86-64', () => {
  const filter = buildFilter(hostAbis('x64')!);
  const call = (nr: number, ...args: number[]) => evaluate(filter, X86_64, nr, args);

  it('refuses the set-user-ID and set-group-ID bits in chmod, fchmod, fchmodat and fchmodat2', () => {
    expect(call(90, 0, 0o4755)).toBe(EPERM); // chmod u+s
    expect(call(90, 0, 0o2755)).toBe(EPERM); // chmod g+s
    expect(call(91, 3, 0o6755)).toBe(EPERM); // fchmod
    expect(call(268, -100, 0, 0o4700)).toBe(EPERM); // fchmodat
    expect(call(452, -100, 0, 0o4700, 0)).toBe(EPERM); // fchmodat2
  });

  it('lets every other mode through, the sticky bit included', () => {
    for (const mode of [0o755, 0o644, 0o1777, 0o000, 0o777]) {
      expect(call(90, 0, mode)).toBe(ALLOW);
      expect(call(91, 3, mode)).toBe(ALLOW);
      expect(call(268, -100, 0, mode)).toBe(ALLOW);
      expect(call(452, -100, 0, mode, 0)).toBe(ALLOW);
    }
  });

  it('refuses creating a file with those bits (open, openat, creat; O_CREAT or O_TMPFILE), not opening one', () => {
    const O_CREAT = 0o100;
    const O_TMPFILE = 0o20200000;
    expect(call(2, 0, O_CREAT | 1, 0o4755)).toBe(EPERM);
    expect(call(257, -100, 0, O_CREAT | 1, 0o2755)).toBe(EPERM);
    expect(call(257, -100, 0, O_TMPFILE | 2, 0o4755)).toBe(EPERM);
    expect(call(85, 0, 0o4755)).toBe(EPERM);
    expect(call(257, -100, 0, O_CREAT | 1, 0o644)).toBe(ALLOW);
    expect(call(2, 0, 0, 0o4755)).toBe(ALLOW); // no O_CREAT: the mode is not used
    expect(call(257, -100, 0, 0, 0o6777)).toBe(ALLOW);
  });

  it('refuses device nodes and set-user-ID files from mknod and mknodat; lets FIFOs and sockets through', () => {
    expect(call(133, 0, 0o020666, 0x103)).toBe(EPERM); // character device
    expect(call(259, -100, 0, 0o060600, 0x800)).toBe(EPERM); // block device
    expect(call(259, -100, 0, 0o104755, 0)).toBe(EPERM); // regular file, setuid
    expect(call(259, -100, 0, 0o010644, 0)).toBe(ALLOW); // FIFO
    expect(call(133, 0, 0o140755, 0)).toBe(ALLOW); // socket
    expect(call(133, 0, 0o100644, 0)).toBe(ALLOW); // regular file
  });

  it('answers openat2 and io_uring with ENOSYS and lets unrelated calls through', () => {
    for (const nr of [437, 425, 426, 427]) expect(call(nr)).toBe(ENOSYS);
    for (const nr of [0, 1, 59, 231, 92 /* chown */]) expect(call(nr, 0, 0o4755, 0o4755, 0o4755)).toBe(ALLOW);
  });

  it('refuses the x32 ABI and foreign architectures, and applies the i386 table to 32-bit calls', () => {
    expect(call(0x40000000 + 90, 0, 0o4755)).toBe(ENOSYS);
    expect(call(0x40000000 + 1)).toBe(ENOSYS);
    expect(evaluate(filter, AARCH64, 52, [3, 0o4755])).toBe(KILL);
    expect(evaluate(filter, I386, 15, [0, 0o4755])).toBe(EPERM); // chmod
    expect(evaluate(filter, I386, 94, [3, 0o2755])).toBe(EPERM); // fchmod
    expect(evaluate(filter, I386, 5, [0, 0o100, 0o4755])).toBe(EPERM); // open O_CREAT
    expect(evaluate(filter, I386, 15, [0, 0o755])).toBe(ALLOW);
    expect(evaluate(filter, I386, 90, [0, 0o4755])).toBe(ALLOW); // 90 is not chmod on i386
  });
});

describe('the seccomp filter on arm64', () => {
  const filter = buildFilter(hostAbis('arm64')!);

  it('uses the generic table and refuses 32-bit ARM calls', () => {
    expect(evaluate(filter, AARCH64, 52, [3, 0o4755])).toBe(EPERM); // fchmod
    expect(evaluate(filter, AARCH64, 53, [-100, 0, 0o2755])).toBe(EPERM); // fchmodat
    expect(evaluate(filter, AARCH64, 56, [-100, 0, 0o100, 0o4755])).toBe(EPERM); // openat O_CREAT
    expect(evaluate(filter, AARCH64, 33, [-100, 0, 0o020666, 0])).toBe(EPERM); // mknodat char
    expect(evaluate(filter, AARCH64, 53, [-100, 0, 0o755])).toBe(ALLOW);
    expect(evaluate(filter, AARCH64, 90, [0, 0o4755])).toBe(ALLOW); // 90 is capget there
    expect(evaluate(filter, ARM, 15, [0, 0o4755])).toBe(KILL);
  });
});

describe('hostAbis', () => {
  it('knows x64, arm64 and riscv64, nothing else', () => {
    expect(hostAbis('x64')).toHaveLength(2);
    expect(hostAbis('arm64')).toHaveLength(1);
    expect(hostAbis('riscv64')).toHaveLength(1);
    expect(hostAbis('s390x')).toBeNull();
    expect(hostAbis('ppc64')).toBeNull();
  });
});

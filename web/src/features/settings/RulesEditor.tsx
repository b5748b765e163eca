/**
 * An ordered list of access rules (docs/client.md §3 "Rule", §6): each allows or denies a path, by text or
 * by regular expression; the last matching rule wins, so rules can be moved up and down.
 */
import type { Rule } from '@coffer/protocol';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Checkbox } from '../../components/Checkbox';
import { FieldError } from '../../components/Field';
import { Icon } from '../../components/Icon';
import { IconButton } from '../../components/IconButton';
import { moveRule, newRule, ruleProblem, ruleText, withRuleRegex, withRuleText } from './rules';
import './settings.css';

let nextKey = 1;

export function RulesEditor({
  legend,
  hint,
  rules,
  onChange,
  showErrors = false,
  serverError = null,
}: {
  legend: string;
  hint?: string;
  rules: readonly Rule[];
  onChange: (rules: Rule[]) => void;
  /** Show every problem (after a save attempt); before that only invalid patterns show. */
  showErrors?: boolean;
  /** A refusal from the server about one rule (0-based index). */
  serverError?: { index: number; message: string } | null;
}) {
  const { t } = useTranslation();
  // Stable React keys that move with their rule, so focus follows a rule moved by keyboard.
  const [keys, setKeys] = useState<number[]>(() => rules.map(() => nextKey++));
  const liveKeys = keys.length === rules.length ? keys : rules.map((_, i) => keys[i] ?? nextKey++);
  if (liveKeys !== keys) setKeys(liveKeys);
  const focusAfter = useRef<string | null>(null);
  const listRef = useRef<HTMLOListElement>(null);

  function focusLater(selector: string) {
    focusAfter.current = selector;
    requestAnimationFrame(() => {
      const el = focusAfter.current
        ? listRef.current?.parentElement?.querySelector<HTMLElement>(focusAfter.current)
        : null;
      focusAfter.current = null;
      el?.focus();
    });
  }

  function update(index: number, rule: Rule) {
    onChange(rules.map((r, i) => (i === index ? rule : r)));
  }

  function add() {
    const key = nextKey++;
    setKeys([...liveKeys, key]);
    onChange([...rules, newRule()]);
    focusLater(`[data-rule="${key}"] input[type="text"]`);
  }

  function remove(index: number) {
    const nextKeys = liveKeys.filter((_, i) => i !== index);
    setKeys(nextKeys);
    onChange(rules.filter((_, i) => i !== index));
    const neighbour = nextKeys[Math.min(index, nextKeys.length - 1)];
    focusLater(neighbour === undefined ? '.rules__add' : `[data-rule="${neighbour}"] input[type="text"]`);
  }

  function move(index: number, delta: number) {
    const key = liveKeys[index];
    setKeys(moveRule(liveKeys, index, delta));
    onChange(moveRule(rules, index, delta));
    const to = index + delta;
    // At either end the button disables itself; keep focus on the rule's other arrow then.
    const which = to === 0 ? 'down' : to === rules.length - 1 ? 'up' : delta < 0 ? 'up' : 'down';
    focusLater(`[data-rule="${key}"] [data-move="${which}"]`);
  }

  return (
    <fieldset className="fieldset rules">
      <legend className="field__label">{legend}</legend>
      {hint ? <p className="field__hint">{hint}</p> : null}
      {rules.length === 0 ? <p className="rules__empty muted">{t('settings.rules.empty')}</p> : null}
      <ol className="rules__list" ref={listRef}>
        {rules.map((rule, index) => {
          const key = liveKeys[index];
          const n = index + 1;
          const problem = ruleProblem(rule);
          const shown =
            serverError?.index === index
              ? serverError.message
              : problem === 'badRegex' || (problem && showErrors)
                ? t(`settings.rules.errors.${problem}`)
                : null;
          const errorId = `rule-${key}-error`;
          return (
            <li key={key} data-rule={key} className="rules__item">
              <fieldset className="rules__row">
                <legend className="visually-hidden">{t('settings.rules.row', { n })}</legend>
                <label className="rules__effect">
                  <span className="visually-hidden">{t('settings.rules.effect')}</span>
                  <select
                    className="input"
                    value={rule.allow ? 'allow' : 'deny'}
                    onChange={(e) => update(index, { ...rule, allow: e.target.value === 'allow' })}
                  >
                    <option value="allow">{t('settings.rules.allow')}</option>
                    <option value="deny">{t('settings.rules.deny')}</option>
                  </select>
                </label>
                <label className="rules__text">
                  <span className="visually-hidden">
                    {rule.regex ? t('settings.rules.pattern') : t('settings.rules.path')}
                  </span>
                  <input
                    type="text"
                    className="input"
                    value={ruleText(rule)}
                    placeholder={rule.regex ? '\\.secret$' : '/private'}
                    dir="ltr"
                    spellCheck={false}
                    autoCapitalize="off"
                    autoComplete="off"
                    aria-invalid={shown ? true : undefined}
                    aria-describedby={shown ? errorId : undefined}
                    onChange={(e) => update(index, withRuleText(rule, e.target.value))}
                  />
                </label>
                <div className="rules__regex">
                  <Checkbox
                    label={t('settings.rules.regex')}
                    checked={rule.regex}
                    onChange={(on) => update(index, withRuleRegex(rule, on))}
                  />
                </div>
                <div className="rules__buttons">
                  <IconButton
                    small
                    icon="arrowUp"
                    label={t('settings.rules.up')}
                    data-move="up"
                    disabled={index === 0}
                    onClick={() => move(index, -1)}
                  />
                  <IconButton
                    small
                    icon="arrowDown"
                    label={t('settings.rules.down')}
                    data-move="down"
                    disabled={index === rules.length - 1}
                    onClick={() => move(index, 1)}
                  />
                  <IconButton small icon="trash" label={t('settings.rules.remove')} onClick={() => remove(index)} />
                </div>
              </fieldset>
              {shown ? <FieldError id={errorId} message={shown} /> : null}
            </li>
          );
        })}
      </ol>
      <button type="button" className="button rules__add" onClick={add}>
        <Icon name="plus" size={18} />
        {t('settings.rules.add')}
      </button>
    </fieldset>
  );
}

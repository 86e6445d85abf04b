// The header's search box (GET /search): what a text finds across assets and the sub-record rows,
// grouped by type with counts, as an ARIA combobox: arrows move through the hits, Enter opens the
// one chosen (or the asset list filtered by the text), Escape closes, "/" anywhere else focuses it.
import { useEffect, useId, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { api, query } from '../api';
import type { SearchGroup as Group } from '../types';

// Keystrokes are gathered this long before a search is sent.
const TYPING_PAUSE_MS = 150;
const MIN_LENGTH = 2;

/** The non-space characters of `text`: the service searches from two. */
const searchable = (text: string) => text.trim().length >= MIN_LENGTH;

export function GlobalSearch() {
  const navigate = useNavigate();
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [text, setText] = useState('');
  const [groups, setGroups] = useState<Group[] | undefined>();
  const [failed, setFailed] = useState(false);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const latest = useRef(0);

  useEffect(() => {
    if (!searchable(text)) {
      setGroups(undefined);
      return undefined;
    }
    const call = ++latest.current;
    const timer = setTimeout(() => {
      api<{ data: Group[] }>(`search${query({ q: text.trim() })}`).then(
        (res) => call === latest.current && (setGroups(res.data), setFailed(false), setActive(-1)),
        () => call === latest.current && (setGroups([]), setFailed(true)),
      );
    }, TYPING_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [text]);

  // "/" focuses the box, unless it is typed into a field.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey || target.closest('input, textarea, select, [contenteditable]')) return;
      e.preventDefault();
      input.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  // Every choice in list order: each group's hits, then the group whole in the asset list.
  const entries = (groups ?? []).flatMap((g) => [
    ...g.hits.map((hit) => ({ key: hit.id, path: `/assets/${hit.id}`, hit, group: g })),
    { key: `all-${g.assetType}`, path: `/assets${query({ type: g.assetType, q: text.trim() })}`, hit: undefined, group: g },
  ]);
  const shown = open && searchable(text) && groups !== undefined;
  const optionId = (i: number) => `${id}-option-${i}`;

  const go = (path: string) => {
    setOpen(false);
    setText('');
    input.current?.blur();
    navigate(path);
  };

  const onKeyDown = (e: React.KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      setOpen(true);
      const n = entries.length;
      if (n === 0) return;
      setActive((a) => (e.key === 'ArrowDown' ? (a + 1) % n : a <= 0 ? n - 1 : a - 1));
    } else if (e.key === 'Enter') {
      e.preventDefault();
      const entry = shown ? entries[active] : undefined;
      if (entry) go(entry.path);
      else if (searchable(text)) go(`/assets${query({ q: text.trim() })}`);
    } else if (e.key === 'Escape') {
      // Closed first (the browser's own Escape would clear the text), then cleared.
      e.preventDefault();
      if (shown) setOpen(false);
      else {
        setText('');
        input.current?.blur();
      }
    }
  };

  const option = (entry: (typeof entries)[number], i: number) => (
    <div
      key={entry.key}
      id={optionId(i)}
      role="option"
      aria-selected={i === active}
      className={entry.hit ? 'search-hit' : 'search-hit search-all'}
      // Chosen before the input's blur closes the list.
      onMouseDown={(e) => {
        e.preventDefault();
        go(entry.path);
      }}
      onMouseEnter={() => setActive(i)}
    >
      {entry.hit ? (
        <>
          <span>{entry.hit.displayName}</span>
          {entry.hit.detail && <span className="muted"> {entry.hit.detail}</span>}
          {entry.hit.host && <span className="muted"> on {entry.hit.host.displayName}</span>}
        </>
      ) : (
        <>All {entry.group.capped ? `${entry.group.total}+` : entry.group.total} {entry.group.assetTypeLabel} matches in the asset list</>
      )}
    </div>
  );

  return (
    <div className="global-search" role="search">
      <input
        ref={input}
        type="search"
        role="combobox"
        aria-label="Search the inventory"
        aria-expanded={shown}
        aria-controls={`${id}-results`}
        aria-autocomplete="list"
        aria-activedescendant={shown && entries[active] ? optionId(active) : undefined}
        placeholder="Search (press /)"
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setOpen(true);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setOpen(false)}
        onKeyDown={onKeyDown}
      />
      <div id={`${id}-results`} role="listbox" aria-label="Search results" className="search-results" hidden={!shown}>
        {shown && failed && <p className="notice error" role="alert">The search failed: try again.</p>}
        {shown && !failed && groups.length === 0 && <p className="muted" role="status">Nothing found for “{text.trim()}”.</p>}
        {shown &&
          groups.map((g) => (
            <div role="group" key={g.assetType} aria-labelledby={`${id}-${g.assetType}`}>
              <div className="search-group" id={`${id}-${g.assetType}`}>
                {g.assetTypeLabel} <span className="count">{g.capped ? `${g.total}+` : g.total}</span>
              </div>
              {entries.map((entry, i) => (entry.group === g ? option(entry, i) : null))}
            </div>
          ))}
      </div>
    </div>
  );
}

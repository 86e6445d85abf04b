// Saved views of a list (GET/POST/DELETE /views): the caller's own to pick from, the one shown with
// its link (anyone signed in opens it), saving what the list shows now under a name, and deleting
// one's own after a confirmation.
import { useId, useState } from 'react';
import { Link } from 'react-router';
import { api, ApiError, type Page } from '../api';
import { useSession } from '../session';
import type { SavedView, SavedViewInput } from '../types';
import { ConfirmButton, ErrorBox, useLoad } from './ui';

export function SavedViews({ list, path, current, shape, onOpen, onSaved, onDeleted }: {
  list: SavedView['list'];
  /** The list page's path: a view's link is it with ?view=<id>. */
  path: string;
  /** The view the page shows, if it shows one as saved. */
  current: SavedView | undefined;
  /** What the list shows now, as a view keeps it. */
  shape: () => Omit<SavedViewInput, 'name' | 'list'>;
  onOpen: (id: string) => void;
  onSaved: (view: SavedView) => void;
  onDeleted: () => void;
}) {
  const { me } = useSession();
  const mine = useLoad(() => api<Page<SavedView>>(`views?list=${list}&size=100`), [list]);
  const [name, setName] = useState('');
  const [error, setError] = useState<ApiError>();
  const pick = useId();
  // An integration key has no views of its own (the API answers 409); people do.
  if (me?.kind !== 'USER') return null;
  const own = current && current.owner.id === me.id;
  const views = mine.data?.data ?? [];

  return (
    <div className="saved-views" role="group" aria-label="Saved views">
      {/* Not wrapped in its label: the list's name is "Saved view" alone, not the option chosen too. */}
      <span className="inline">
        <label htmlFor={pick}>Saved view</label>
        <select id={pick} value={current && views.some((v) => v.id === current.id) ? current.id : ''} onChange={(e) => e.target.value && onOpen(e.target.value)}>
          <option value="">{views.length ? 'Choose a view…' : 'None saved yet'}</option>
          {views.map((v) => <option key={v.id} value={v.id}>{v.name}</option>)}
        </select>
      </span>
      {current && (
        <span className="current-view">
          Showing <strong>{current.name}</strong>
          {!own && <> by {current.owner.username}</>} · <Link to={`${path}?view=${current.id}`}>Link to this view</Link>
          {own && (
            <>
              {' '}
              <ConfirmButton
                label="Delete view"
                danger
                question={`Delete the view "${current.name}"? Its link stops working.`}
                onConfirm={async () => {
                  await api(`views/${current.id}`, { method: 'DELETE' });
                  mine.reload();
                  onDeleted();
                }}
              />
            </>
          )}
        </span>
      )}
      <form
        className="inline"
        onSubmit={async (e) => {
          e.preventDefault();
          setError(undefined);
          try {
            const { data } = await api<{ data: SavedView }>('views', { method: 'POST', body: { name: name.trim(), list, ...shape() } });
            setName('');
            mine.reload();
            onSaved(data);
          } catch (err) {
            setError(err instanceof ApiError ? err : new ApiError(0, 'Error', String(err)));
          }
        }}
      >
        <label className="inline">
          <span>View name</span>
          <input required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} placeholder="Linux hosts in Paris" />
        </label>
        <button type="submit">Save view</button>
      </form>
      <ErrorBox error={error ?? (mine.error?.status === 409 ? undefined : mine.error)} labels={{ name: 'View name' }} />
    </div>
  );
}

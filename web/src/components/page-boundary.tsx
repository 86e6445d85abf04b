// A page that fails while it draws says so in its own place: the header and navigation stay, and
// the next page starts afresh (the shell keys this boundary by the page's path).
import { Component, type ReactNode } from 'react';

export class PageBoundary extends Component<{ children: ReactNode }, { error?: Error }> {
  state: { error?: Error } = {};

  static getDerivedStateFromError(error: Error): { error: Error } {
    return { error };
  }

  render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <div className="notice error" role="alert">
        <strong>This page failed to show</strong> — {error.message}
        <div className="actions">
          <button type="button" onClick={() => this.setState({ error: undefined })}>Try again</button>
        </div>
      </div>
    );
  }
}

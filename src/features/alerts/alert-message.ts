// The team-chat message of a run that finished with errors, in the two webhook formats: a Slack
// incoming-webhook payload (text + Block Kit blocks, also taken by Mattermost and Rocket.Chat) and
// a Microsoft Teams message carrying an Adaptive Card (what a Teams "post to a channel when a
// webhook request is received" workflow takes). Pure functions: the content comes in whole.
import type { AlertFormat } from '../../platform/config.js';

export interface AlertContent {
  targetName: string;
  status: string;
  /** Error records per code, most frequent first. */
  errorCounts: Record<string, number>;
  failureReason: string | null;
  runUrl: string;
  /** The diagnosis summary and its first actions, when the run has one. */
  diagnosis?: { summary: string; actions: string[] };
}

// Slack's limits: a header holds 150 characters, a section's text 3000.
const HEADER_MAX = 150;
const SECTION_MAX = 3000;

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Slack mrkdwn treats &, < and > as markup; names and device text must not become links. */
const slackEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function headline(c: AlertContent): string {
  return `Discovery run of ${c.targetName} finished ${c.status}`;
}

function countsText(c: AlertContent, separator: string): string {
  const entries = Object.entries(c.errorCounts);
  return entries.length ? entries.map(([code, n]) => `${code}: ${n}`).join(separator) : 'no error records';
}

function slackMessage(c: AlertContent): object {
  const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text: cut(text, SECTION_MAX) } });
  const blocks: object[] = [
    { type: 'header', text: { type: 'plain_text', text: cut(headline(c), HEADER_MAX) } },
    {
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: `*Target*\n${slackEscape(c.targetName)}` },
        { type: 'mrkdwn', text: `*Status*\n${c.status}` },
        { type: 'mrkdwn', text: cut(`*Errors by code*\n${countsText(c, '\n')}`, 2000) },
      ],
    },
  ];
  if (c.failureReason) blocks.push(section(`*Failure reason*\n${slackEscape(c.failureReason)}`));
  if (c.diagnosis) {
    blocks.push(section(`*Diagnosis*\n${slackEscape(c.diagnosis.summary)}`));
    blocks.push(section(`*First actions*\n${c.diagnosis.actions.map((a) => `• ${slackEscape(a)}`).join('\n')}`));
  }
  blocks.push(section(`<${c.runUrl}|Open the run>`));
  // `text` is what notifications and clients without blocks show.
  return { text: `${slackEscape(headline(c))} (${countsText(c, ', ')}): ${c.runUrl}`, blocks };
}

function teamsMessage(c: AlertContent): object {
  const body: object[] = [
    { type: 'TextBlock', text: headline(c), size: 'Medium', weight: 'Bolder', wrap: true },
    {
      type: 'FactSet',
      facts: [
        { title: 'Target', value: c.targetName },
        { title: 'Status', value: c.status },
        { title: 'Errors by code', value: countsText(c, ', ') },
        ...(c.failureReason ? [{ title: 'Failure reason', value: c.failureReason }] : []),
      ],
    },
  ];
  if (c.diagnosis) {
    body.push({ type: 'TextBlock', text: 'Diagnosis', weight: 'Bolder', wrap: true });
    body.push({ type: 'TextBlock', text: c.diagnosis.summary, wrap: true });
    body.push({ type: 'TextBlock', text: 'First actions', weight: 'Bolder', wrap: true });
    body.push(...c.diagnosis.actions.map((a) => ({ type: 'TextBlock', text: `- ${a}`, wrap: true })));
  }
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body,
          actions: [{ type: 'Action.OpenUrl', title: 'Open the run', url: c.runUrl }],
        },
      },
    ],
  };
}

export function alertMessage(format: AlertFormat, content: AlertContent): object {
  return format === 'teams' ? teamsMessage(content) : slackMessage(content);
}

import { describe, expect, it } from 'vitest';
import { opensWithAction, readsAsRequest, requestAction, toolActions } from '../../src/text/actions.js';

describe('requestAction', () => {
  it('reads the verb of a request, a noun used as a verb included', () => {
    expect(requestAction('email him the details')).toBe('send');
    expect(requestAction('please email the team')).toBe('send');
    expect(requestAction("Reply to Mark's email about the budget")).toBe('reply');
    expect(requestAction('Forward the invoice email from Acme')).toBe('forward');
    expect(requestAction('Read the latest email from HR')).toBe('read');
    expect(requestAction('DM Carlos that the build is green')).toBe('send');
  });

  it('a word that is a noun where it stands is not the action', () => {
    expect(requestAction('how many unread emails do I have')).toBeUndefined();
    expect(requestAction('what is in the email from Lena')).toBeUndefined();
    expect(requestAction('What is the weather in Paris?')).toBeUndefined();
    // "check in" to a hotel, "log in" to an app: no action of the table, whatever follows.
    expect(requestAction("I'd like to check in on April 21, and find me a place")).toBeUndefined();
    expect(requestAction('log in as USR001 and send the note')).toBeUndefined();
  });

  it('phrases come first where they stand first', () => {
    expect(requestAction('Let the on-call know that checkout is down')).toBe('send');
    expect(requestAction('roll back the latest deploy')).toBe('rollback');
    expect(requestAction('Mark task 4821 as done')).toBe('complete');
  });
});

describe('toolActions', () => {
  it('a tool replying to an email does not send one', () => {
    expect([...toolActions('send_email', 'Compose and send a new email.')]).toContain('send');
    expect([...toolActions('reply_to_email', 'Reply to an email.')]).toEqual(['reply']);
    expect([...toolActions('forward_email', 'Forward an email.')]).toEqual(['forward']);
    expect([...toolActions('post_message', 'Post a message to a channel.')]).toEqual(['send']);
  });

  it('reads camelCase names, the description head, and names without verbs', () => {
    expect([...toolActions('EmailSender', '')]).toEqual(['send']);
    expect([...toolActions('add_ticket_reply', 'Reply to the customer on a ticket.')].sort()).toEqual([
      'create',
      'reply',
    ]);
    expect([...toolActions('geometry.area_circle', 'Area of a circle.')]).toEqual([]);
  });
});

describe('opensWithAction', () => {
  it('a verb of the table or a phrase at the start, after words that lead into a request', () => {
    for (const text of [
      'ack ALR-7710',
      'page the on-call',
      'please email him',
      'also let #ops know',
      'look up the order',
    ])
      expect(opensWithAction(text), text).toBe(true);
  });

  it('a noun, a plural, a verb later on or nothing does not', () => {
    for (const text of ['the details', 'dogs', 'alerts from today', 'the team and email them', '', '  '])
      expect(opensWithAction(text), text).toBe(false);
  });
});

describe('readsAsRequest', () => {
  it('a command, a question or a wish asks for something', () => {
    for (const text of [
      'send an email to Kim',
      'then page the on-call',
      'what is the weather in Paris',
      "What's the weather there",
      'the forecast for Rome?',
      'can you find me a flight',
      "I'd like a table for two",
      'I need the Q3 report',
      'also, how many days of leave are left',
      "let's book the room",
    ])
      expect(readsAsRequest(text), text).toBe(true);
  });

  it("a statement of what the request carries does not; nor does what isn't text", () => {
    for (const text of [
      'We accept clauses 3 and 4 but need to talk about the liability cap',
      'the customer is unhappy with the delay',
      'Thanks',
      '',
    ])
      expect(readsAsRequest(text), text).toBe(false);
    expect(readsAsRequest(42 as unknown as string)).toBe(false);
  });
});

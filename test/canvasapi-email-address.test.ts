/**
 * What the invitation allowlist reads as an address (src/canvasapi/email-address.ts): a whole
 * value is plain exactly when a reference grammar written from RFC 5322's dot-atom and RFC 1035's
 * host names says so; every RFC 5322 form that can hide another mailbox (comments, quoted names,
 * white space around dots, source routes, domain literals) is refused, in a field and, unless it is
 * spread over words, in running text; domains are compared in their IDNA ASCII form.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { addressesInText, readDomain, readPlainAddress } from '../src/canvasapi/email-address.js';

/**
 * The reference: RFC 5322 3.2.3 dot-atom-text @ RFC 1035 labels (digits first allowed, RFC 1123),
 * a top-level label that is no number (all digits, or hexadecimal "0x...", which URL host parsing
 * reads as an IPv4 address).
 */
const ATEXT = "A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~";
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const REFERENCE = new RegExp(`^([${ATEXT}]+(?:\\.[${ATEXT}]+)*)@(${LABEL}(?:\\.${LABEL})+)$`);

function referenceRead(value: string): { local: string; domain: string } | undefined {
  const match = REFERENCE.exec(value);
  if (!match) return undefined;
  const [, local = '', domain = ''] = match;
  if (local.length > 64 || domain.length > 253 || /^(?:\d+|0x[0-9a-f]*)$/i.test(domain.split('.').pop()!)) return undefined;
  return { local: local.toLowerCase(), domain: domain.toLowerCase() };
}

/** ASCII pieces that make and break addresses. */
const PIECE = fc.constantFrom('a', 'Z', '0', '9', '-', '.', '.', '@', '!', '#', '~', '{', '(', ')', '"', '\\', ' ', '\t', '[', ']', ':', ',', ';', '<', '>', '%', '_', '+');
const atom = fc.stringMatching(/^[a-z0-9]{1,6}$/);
const domainName = fc.tuple(atom, fc.constantFrom('example', 'partner', 'evil'), fc.constantFrom('io', 'example', 'com')).map(([sub, name, tld]) => `${sub}.${name}.${tld}`);

/** RFC 5322 forms of a mailbox that are not a plain address, each as [written form, whether running text reads it otherwise: spread over words, or a sentence's full stop]. */
const unplainForms = fc.tuple(atom, atom, domainName, atom).chain(([a, b, domain, note]) =>
  fc.constantFrom<[string, boolean]>(
    [`${a}.(${note})${b}@${domain}`, false],
    [`${a}(${note})${b}@${domain}`, false],
    [`(${note})${a}@${domain}`, false],
    [`${a}(${note})@${domain}`, false],
    [`${a}@(${note})${domain}`, false],
    [`${a}@${domain}(${note})`, false],
    [`${a}@${domain.replace('.', `.(${note})`)}`, false],
    [`"${a}"@${domain}`, false],
    [`"${a}.${b}"@${domain}`, false],
    [`"${a}".${b}@${domain}`, false],
    [`${a}."${b}"@${domain}`, false],
    [`"${a}"${b}@${domain}`, false],
    [`"${a}@${note}"@${domain}`, false],
    [`${a}\\@${b}@${domain}`, false],
    [`@${note}.example:${a}@${domain}`, false],
    [`@${note}.example,@${b}.example:${a}@${domain}`, false],
    [`${a}@[192.0.2.1]`, false],
    [`${a}@[IPv6:2001:db8::1]`, false],
    [`${a}@192.0.2.1`, false],
    [`${a}@${domain}@${note}.example`, false],
    [`${a}\uff20${domain}`, false],
    [`${a}. ${b}@${domain}`, true],
    [`${a} . ${b}@${domain}`, true],
    [`${a} @ ${domain}`, true],
    [`${a}@${domain.replace('.', ' . ')}`, true],
    [`${a}@${domain}.`, true],
    [`${b} <${a}@${domain}>`, true],
  ),
);

describe('plain e-mail addresses', () => {
  it('property: a whole value is a plain address exactly when the reference grammar says so, and reads as it does', () => {
    const nearlyValid = fc.tuple(fc.emailAddress(), fc.nat(), PIECE).map(([address, at, piece]) => {
      const i = at % (address.length + 1);
      return address.slice(0, i) + piece + address.slice(i);
    });
    const value = fc.oneof(fc.array(PIECE, { maxLength: 24 }).map((pieces) => pieces.join('')), fc.emailAddress(), nearlyValid);
    fc.assert(
      // Punycode labels ("xn--") are IDNA's to judge, below.
      fc.property(value.filter((text) => !/xn--/i.test(text)), (text) => {
        const read = readPlainAddress(text);
        const expected = referenceRead(text);
        assert.deepEqual('problem' in read ? undefined : read, expected, `${JSON.stringify(text)}: ${JSON.stringify(read)}`);
      }),
      { numRuns: 5000 },
    );
  });

  it('property: no RFC 5322 form that hides a mailbox reads as plain in a field, nor in running text unless spread over words', () => {
    const words = fc.array(atom, { maxLength: 3 }).map((list) => list.join(' '));
    fc.assert(
      fc.property(unplainForms, words, words, ([form, fieldOnly], before, after) => {
        const read = readPlainAddress(form);
        assert.ok('problem' in read, `${JSON.stringify(form)} read as ${JSON.stringify(read)}`);
        if (fieldOnly) return;
        const found = addressesInText(`${before} ${form} ${after}`);
        assert.ok(found.some((address) => 'problem' in address), `${JSON.stringify(form)} in text: ${JSON.stringify(found)}`);
      }),
      { numRuns: 2000 },
    );
  });

  it("reads the issue's two addresses as forms with a comment, wherever they are", () => {
    for (const address of ['eve.(x)ana@partner.io', 'eve(x)ana@partner.io']) {
      assert.deepEqual(readPlainAddress(address), { problem: 'has a comment in parentheses' });
      assert.deepEqual(addressesInText(`Please add ${address}, thanks.`), [{ shown: address, problem: 'has a comment in parentheses' }]);
    }
  });

  it('reads plain addresses in running text up to white space and punctuation, a closing full stop not the domain', () => {
    const shown = (text: string) => addressesInText(text).map((found) => ('problem' in found ? `!${found.shown}` : found.shown));
    assert.deepEqual(shown('Ana <ana@partner.io>, mailto:EVE@Evil.Example; (bo@x.example). Write to jo@y.example.'), ['ana@partner.io', 'EVE@Evil.Example', 'bo@x.example', 'jo@y.example']);
    assert.deepEqual(shown('"ana@partner.io" and x"ana@partner.io"'), ['ana@partner.io', '!x"ana@partner.io"']);
    assert.deepEqual(shown('no address: @ alone, a@ b, 50 @ 3 EUR'), []);
    assert.deepEqual(shown('ping @team.example'), ['@team.example'], 'a domain alone is read as one, to be compared with the listed domains');
  });

  it('compares domains in their IDNA ASCII form, in any case or width; refuses trailing dots, literals and invalid names', () => {
    for (const [written, ascii] of [
      ['Partner.IO', 'partner.io'],
      ['bücher.example', 'xn--bcher-kva.example'],
      ['BÜCHER.example', 'xn--bcher-kva.example'],
      ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
      ['ｅｘａｍｐｌｅ.com', 'example.com'],
      ['partner\u3002io', 'partner.io'],
    ] as const) {
      assert.deepEqual(readDomain(written), { ascii }, written);
    }
    // A Cyrillic "а" is another domain.
    assert.deepEqual(readDomain('ex\u0430mple.com'), { ascii: 'xn--exmple-4nf.com' });
    for (const [written, problem] of [
      ['partner.io.', /ending in a dot/],
      ['[192.0.2.1]', /IP-address literal/],
      ['192.0.2.1', /IP address/],
      ['xn--a.io', /not a valid internationalized/],
      ['\u{1f4a9}.la', /characters other than/],
      ['a%2eb.io', /characters other than/],
      ['localhost', /single label/],
      ['a..b.io', /empty label/],
      ['-a.io', /hyphen/],
      [`${'x'.repeat(64)}.io`, /longer than DNS allows/],
    ] as const) {
      const read = readDomain(written);
      assert.ok('problem' in read && problem.test(read.problem), `${written}: ${JSON.stringify(read)}`);
    }
  });
});

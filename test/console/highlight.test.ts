import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tokenize, type Token } from '../../console/src/highlight.js';

const kinds = (src: string): [string, string][] =>
  tokenize(src)
    .filter((t) => t.kind !== 'space')
    .map((t: Token) => [t.kind, t.text]);

describe('the console tokenizer', () => {
  it('gives the source back exactly, for any input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
        expect(
          tokenize(s)
            .map((t) => t.text)
            .join(''),
        ).toBe(s);
      }),
      { numRuns: 500 },
    );
    // ... and for programs made of TypeScript's tricky pieces
    const piece = fc.constantFrom(
      '`a${b}c`',
      '`${`${x}`}`',
      '`open',
      '"un',
      "'x\\'y'",
      '/re[/]x/g',
      'a / b / c',
      '/* c',
      '// c\n',
      '${',
      '}',
      '{',
      '1e-3',
      '0x1F',
      '10n',
      '.5',
      'return /x/',
      'x?.y',
      '=>',
      '\\',
      '\r\n',
      'é',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (parts) => {
        const s = parts.join(' ');
        expect(
          tokenize(s)
            .map((t) => t.text)
            .join(''),
        ).toBe(s);
      }),
      { numRuns: 500 },
    );
  });

  it('tells keywords, strings, numbers, comments, types, calls and literals apart', () => {
    expect(
      kinds(
        `// hi\nconst n: number = await tools.kv.get({ key: 'a' }); return n > 0x1f ? null : "s";`,
      ),
    ).toEqual([
      ['comment', '// hi'],
      ['keyword', 'const'],
      ['ident', 'n'],
      ['punct', ':'],
      ['type', 'number'],
      ['punct', '='],
      ['keyword', 'await'],
      ['ident', 'tools'],
      ['punct', '.'],
      ['ident', 'kv'],
      ['punct', '.'],
      ['function', 'get'],
      ['punct', '({'],
      ['ident', 'key'],
      ['punct', ':'],
      ['string', "'a'"],
      ['punct', '});'],
      ['keyword', 'return'],
      ['ident', 'n'],
      ['punct', '>'],
      ['number', '0x1f'],
      ['punct', '?'],
      ['literal', 'null'],
      ['punct', ':'],
      ['string', '"s"'],
      ['punct', ';'],
    ]);
  });

  it('reads template literals with nested expressions, regexes and divisions', () => {
    expect(kinds('`a${ {x: 1}.x }b`')).toEqual([
      ['string', '`a${'],
      ['punct', '{'],
      ['ident', 'x'],
      ['punct', ':'],
      ['number', '1'],
      ['punct', '}.'],
      ['ident', 'x'],
      ['string', '}b`'],
    ]);
    expect(kinds('const r = /a\\/[/]b/gi; x = a / b / 2;')).toContainEqual([
      'regex',
      '/a\\/[/]b/gi',
    ]);
    expect(kinds('x = a / b / 2;').filter(([k]) => k === 'regex')).toEqual([]);
    expect(kinds('o.return')).toEqual([
      ['ident', 'o'],
      ['punct', '.'],
      ['ident', 'return'],
    ]);
  });
});

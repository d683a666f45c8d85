/**
 * Where the viewer's key lives: `sessionStorage`, this browser tab only (gone when it closes),
 * never a cookie or a URL.
 */

const KEY_ITEM = 'isocode.console.key';

/** The viewer's key for this tab, if one was entered. */
export function storedKey(): string | undefined {
  try {
    return sessionStorage.getItem(KEY_ITEM) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Keeps the key for this tab (`undefined` forgets it). */
export function storeKey(key: string | undefined): void {
  try {
    if (key === undefined) sessionStorage.removeItem(KEY_ITEM);
    else sessionStorage.setItem(KEY_ITEM, key);
  } catch {
    // storage disabled: the key lives only as long as the page
  }
}

/**
 * `123,456`, as `toLocaleString('en-US')` writes it, without loading ICU's number formats (a hook
 * process's first suggestion paid for that).
 */
export function formatTokens(value: number): string {
  const rounded = Math.round(value);
  // Plain digits only: exponents, infinities and -0 are left to Intl.
  if (!Number.isSafeInteger(rounded) || Object.is(rounded, -0)) return rounded.toLocaleString('en-US');
  const digits = String(Math.abs(rounded));
  let grouped = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let index = grouped.length; index < digits.length; index += 3) grouped += `,${digits.slice(index, index + 3)}`;
  return rounded < 0 ? `-${grouped}` : grouped;
}

/**
 * One value per key, made on first use. For Intl formatters: building one costs far more than
 * formatting with it, and every row of a listing formats a size and a date.
 */
export function memoize<V>(make: (key: string) => V): (key: string) => V {
  const made = new Map<string, V>();
  return (key) => {
    let value = made.get(key);
    if (value === undefined) {
      value = make(key);
      made.set(key, value);
    }
    return value;
  };
}

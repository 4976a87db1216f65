//! Work on all cores: a parallel map whose results come back in the items' order, all at once
//! ([`par_map`]) or one at a time with a bounded number made ahead ([`par_window`]).

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};

/// The number of threads for `threads` (0: all cores) and `items` items.
fn workers(threads: usize, items: usize) -> usize {
    if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    }
    .min(items)
    .max(1)
}

/// `f` over every item on `threads` threads (0: all cores), the results in the items' order.
/// A worker that panics is a bug; its items come back as `missing()`.
pub(crate) fn par_map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
    missing: impl Fn() -> R,
) -> Vec<R> {
    let threads = workers(threads, items.len());
    let next = AtomicUsize::new(0);
    let mut done: Vec<Option<R>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        out.push((i, f(item)));
                    }
                    out
                })
            })
            .collect();
        let mut all: Vec<Option<R>> = (0..items.len()).map(|_| None).collect();
        for w in workers {
            for (i, r) in w.join().unwrap_or_default() {
                if let Some(slot) = all.get_mut(i) {
                    *slot = Some(r);
                }
            }
        }
        all
    });
    done.iter_mut()
        .map(|r| r.take().unwrap_or_else(&missing))
        .collect()
}

/// State shared by the workers of [`par_window`] and the thread consuming their results.
struct Window<R> {
    /// The next item a worker takes.
    next: usize,
    /// The items consumed so far (a worker may take item `i` only when `i < consumed + window`).
    consumed: usize,
    /// The weights of the items taken and not yet consumed, added up.
    held: u64,
    /// Results made and not yet consumed.
    ready: BTreeMap<usize, R>,
    /// Set when the consumer stops early: the workers take no more items.
    stop: bool,
}

/// `f` over every item on `threads` threads (0: all cores), each result handed to `consume` on
/// the calling thread in the items' order, as soon as it and all before it are made. At most
/// `window` items are taken ahead of the one being consumed, and only while their `weight`s
/// (what making and holding each costs) add up to at most `budget` — an item alone may weigh
/// more, and is then made alone — so what is held at once is bounded however many items there
/// are. The first error `consume` returns stops the work and is returned. A worker that panics
/// (a bug) gives `missing()` for its item.
#[allow(clippy::too_many_arguments)]
pub(crate) fn par_window<T: Sync, R: Send, E>(
    items: &[T],
    threads: usize,
    window: usize,
    budget: u64,
    weight: impl Fn(&T) -> u64 + Sync,
    f: impl Fn(&T) -> R + Sync,
    missing: impl Fn() -> R + Sync,
    mut consume: impl FnMut(usize, R) -> Result<(), E>,
) -> Result<(), E> {
    let threads = workers(threads, items.len());
    let window = window.max(1);
    let state = Mutex::new(Window {
        next: 0,
        consumed: 0,
        held: 0,
        ready: BTreeMap::new(),
        stop: false,
    });
    let changed = Condvar::new();
    let lock = || state.lock().unwrap_or_else(PoisonError::into_inner);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = {
                    let mut st = lock();
                    let fits = |st: &Window<R>| {
                        let w = items.get(st.next).map_or(0, &weight);
                        st.next == st.consumed
                            || (st.next < st.consumed + window
                                && st.held.saturating_add(w) <= budget)
                    };
                    while !st.stop && st.next < items.len() && !fits(&st) {
                        st = changed.wait(st).unwrap_or_else(PoisonError::into_inner);
                    }
                    if st.stop || st.next >= items.len() {
                        break;
                    }
                    st.held += items.get(st.next).map_or(0, &weight);
                    st.next += 1;
                    st.next - 1
                };
                let r = items
                    .get(i)
                    .map(|item| catch_unwind(AssertUnwindSafe(|| f(item))));
                let r = match r {
                    Some(Ok(r)) => r,
                    _ => missing(),
                };
                lock().ready.insert(i, r);
                changed.notify_all();
            });
        }
        let mut result = Ok(());
        for i in 0..items.len() {
            let r = {
                let mut st = lock();
                loop {
                    if let Some(r) = st.ready.remove(&i) {
                        break r;
                    }
                    st = changed.wait(st).unwrap_or_else(PoisonError::into_inner);
                }
            };
            result = consume(i, r);
            let mut st = lock();
            st.consumed = i + 1;
            st.held -= items.get(i).map_or(0, &weight);
            if result.is_err() {
                st.stop = true;
            }
            drop(st);
            changed.notify_all();
            if result.is_err() {
                break;
            }
        }
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_gives_results_in_order_and_holds_at_most_window_ahead() {
        let items: Vec<usize> = (0..200).collect();
        let made = AtomicUsize::new(0);
        let mut seen = Vec::new();
        let mut most_ahead = 0;
        par_window(
            &items,
            4,
            3,
            u64::MAX,
            |_| 1,
            |&i| {
                made.fetch_add(1, Ordering::SeqCst);
                // Later items finish first, to make the order matter.
                std::thread::sleep(std::time::Duration::from_micros((200 - i as u64) % 7 * 50));
                i * 2
            },
            || usize::MAX,
            |i, r| -> Result<(), ()> {
                // Made so far, less consumed before this one: the items taken ahead.
                most_ahead = most_ahead.max(made.load(Ordering::SeqCst) - i);
                seen.push(r);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen, items.iter().map(|i| i * 2).collect::<Vec<_>>());
        assert!(
            most_ahead <= 3,
            "{most_ahead} items made ahead of a window of 3"
        );
    }

    #[test]
    fn window_holds_at_most_its_budget_unless_one_item_outweighs_it() {
        // Weights 1..=9 cycling, budget 10: the items in flight never weigh more than 10,
        // except an item weighing more (none here weighs over 9, so never).
        let items: Vec<u64> = (0..300).map(|i| i % 9 + 1).collect();
        let held = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let mut seen = 0;
        par_window(
            &items,
            4,
            8,
            10,
            |&w| w,
            |&w| {
                let now = held.fetch_add(w as usize, Ordering::SeqCst) + w as usize;
                most.fetch_max(now, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_micros(w * 30));
                w
            },
            || 0,
            |_, w| -> Result<(), ()> {
                held.fetch_sub(w as usize, Ordering::SeqCst);
                seen += 1;
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen, items.len());
        let most = most.load(Ordering::SeqCst);
        assert!(most <= 10, "{most} in flight for a budget of 10");
        // An item heavier than the budget is made, alone.
        let mut got = Vec::new();
        par_window(
            &[5u64, 50, 5],
            2,
            4,
            10,
            |&w| w,
            |&w| w,
            || 0,
            |_, w| {
                got.push(w);
                Ok::<(), ()>(())
            },
        )
        .unwrap();
        assert_eq!(got, vec![5, 50, 5]);
    }

    #[test]
    fn window_stops_at_the_first_error_and_a_panic_is_missing() {
        let items: Vec<usize> = (0..100).collect();
        let made = AtomicUsize::new(0);
        let mut got = Vec::new();
        let r = par_window(
            &items,
            2,
            4,
            u64::MAX,
            |_| 1,
            |&i| {
                made.fetch_add(1, Ordering::SeqCst);
                assert!(i != 5, "item 5 panics");
                i
            },
            || 1000,
            |_, r| {
                got.push(r);
                if r == 1000 {
                    Err("missing")
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(r, Err("missing"));
        assert_eq!(got, vec![0, 1, 2, 3, 4, 1000]);
        assert!(
            made.load(Ordering::SeqCst) <= 5 + 1 + 4,
            "work went on after the error"
        );
    }
}

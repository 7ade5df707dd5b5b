//! Spreading CPU-heavy per-item work (sealing, compressing, decrypting)
//! over the machine's cores for bulk operations, with plain scoped threads.
//! Results always come back in the items' order, so what is written or
//! printed is the same as with one thread.

use std::sync::mpsc;

use crate::error::{Error, Result};

/// Below this many items the work stays on the calling thread: a thread
/// costs more than it saves.
pub const MIN_PARALLEL: usize = 256;

/// How many items a pipeline's helper seals before handing them over.
const PIPELINE_CHUNK: usize = 1024;

/// Worker threads for bulk work: the cores available, at most 8.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
}

fn worker_failed() -> Error {
    Error::integrity("bulk work", "a worker thread failed")
}

/// `f` applied to every item, on up to [`threads`] threads, in order. The
/// first error is returned (items after it may have been processed).
pub fn map<T: Sync, U: Send>(items: &[T], f: impl Fn(&T) -> Result<U> + Sync) -> Result<Vec<U>> {
    map_on(threads(), items, f)
}

/// [`map`] on up to `threads` threads.
pub fn map_on<T: Sync, U: Send>(threads: usize, items: &[T], f: impl Fn(&T) -> Result<U> + Sync) -> Result<Vec<U>> {
    if threads < 2 || items.len() < MIN_PARALLEL {
        return items.iter().map(f).collect();
    }
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(items.len().div_ceil(threads))
            .map(|chunk| scope.spawn(move || chunk.iter().map(f).collect::<Result<Vec<U>>>()))
            .collect();
        let mut out = Vec::with_capacity(items.len());
        for h in handles {
            out.extend(h.join().map_err(|_| worker_failed())??);
        }
        Ok(out)
    })
}

/// `f` applied to each of a few large items, each on its own thread, at
/// most [`threads`] at once (so at most that many items' working memory
/// at once), in order; the first error is returned.
pub fn each<T: Sync, U: Send>(items: &[T], f: impl Fn(&T) -> Result<U> + Sync) -> Result<Vec<U>> {
    let threads = threads();
    if threads < 2 || items.len() < 2 {
        return items.iter().map(f).collect();
    }
    let f = &f;
    let mut out = Vec::with_capacity(items.len());
    for batch in items.chunks(threads) {
        std::thread::scope(|scope| -> Result<()> {
            let handles: Vec<_> = batch.iter().map(|item| scope.spawn(move || f(item))).collect();
            for h in handles {
                out.push(h.join().map_err(|_| worker_failed())??);
            }
            Ok(())
        })?;
    }
    Ok(out)
}

/// Folds every item into an accumulator made by `start`, on up to
/// [`threads`] threads (one accumulator per thread, over a run of the
/// items), then `merge`s them into one: for sums whose order does not
/// matter (XORs of tags, set hashes).
pub fn fold<T: Sync, A: Send>(
    items: &[T],
    start: impl Fn() -> A + Sync,
    step: impl Fn(&mut A, &T) + Sync,
    merge: impl Fn(&mut A, A),
) -> Result<A> {
    let threads = threads();
    let run = |chunk: &[T]| {
        let mut acc = start();
        chunk.iter().for_each(|item| step(&mut acc, item));
        acc
    };
    if threads < 2 || items.len() < MIN_PARALLEL {
        return Ok(run(items));
    }
    let run = &run;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(items.len().div_ceil(threads))
            .map(|chunk| scope.spawn(move || run(chunk)))
            .collect();
        let mut total = start();
        for h in handles {
            merge(&mut total, h.join().map_err(|_| worker_failed())?);
        }
        Ok(total)
    })
}

/// Runs `side` on a helper thread while `main` runs on this one (which may
/// hold what cannot be shared, such as a database transaction), and
/// returns both results; `side` is told how many threads it may use
/// itself (the cores [`main`] leaves). Not `spread`: `side` runs first,
/// on this thread with every core, then `main` (whose work would not pay
/// for a thread). Either way both have finished when this returns; the
/// error of `side` comes first, then that of `main`.
pub fn beside<A: Send, B>(
    spread: bool,
    side: impl FnOnce(usize) -> Result<A> + Send,
    main: impl FnOnce() -> Result<B>,
) -> Result<(A, B)> {
    let threads = threads();
    if !spread || threads < 2 {
        let a = side(threads)?;
        return Ok((a, main()?));
    }
    std::thread::scope(|scope| {
        let helper = scope.spawn(move || side(threads - 1));
        let b = main();
        let a = helper.join().map_err(|_| worker_failed())?;
        Ok((a?, b?))
    })
}

/// [`beside`] for work that cannot fail: `side` on a helper thread while
/// `main` runs on this one when `spread` (and the machine has two cores),
/// else `side` then `main` here. A panic in `side` goes on in this thread.
pub fn both<A: Send, B>(spread: bool, side: impl FnOnce() -> A + Send, main: impl FnOnce() -> B) -> (A, B) {
    if !spread || threads() < 2 {
        let a = side();
        return (a, main());
    }
    std::thread::scope(|scope| {
        let helper = scope.spawn(side);
        let b = main();
        (helper.join().unwrap_or_else(|p| std::panic::resume_unwind(p)), b)
    })
}

/// Runs `produce` on every item (and its place) on a helper thread, a chunk ahead, while
/// this thread hands each result, in order, to `consume` (which may hold
/// what cannot be shared, such as a database transaction). At most two
/// chunks of results exist at once, so memory stays flat however many
/// items there are. Stops at the first error of either side.
pub fn pipeline<T: Sync, U: Send>(
    items: &[T],
    produce: impl Fn(usize, &T) -> Result<U> + Sync,
    mut consume: impl FnMut(&T, U) -> Result<()>,
) -> Result<()> {
    if threads() < 2 || items.len() < MIN_PARALLEL {
        return items
            .iter()
            .enumerate()
            .try_for_each(|(i, item)| consume(item, produce(i, item)?));
    }
    let produce = &produce;
    std::thread::scope(|scope| {
        let (send, receive) = mpsc::sync_channel::<Result<Vec<U>>>(1);
        let helper = scope.spawn(move || {
            for (n, chunk) in items.chunks(PIPELINE_CHUNK).enumerate() {
                let first = n * PIPELINE_CHUNK;
                let done = (first..)
                    .zip(chunk)
                    .map(|(i, item)| produce(i, item))
                    .collect::<Result<Vec<U>>>();
                let failed = done.is_err();
                // A closed channel means the consumer stopped: so do we.
                if send.send(done).is_err() || failed {
                    return;
                }
            }
        });
        let mut consumed = Ok(());
        for (chunk, done) in items.chunks(PIPELINE_CHUNK).zip(receive.iter()) {
            consumed = done.and_then(|results| {
                chunk
                    .iter()
                    .zip(results)
                    .try_for_each(|(item, result)| consume(item, result))
            });
            if consumed.is_err() {
                break;
            }
        }
        // Dropping the receiver ends a helper that is still producing.
        drop(receive);
        helper.join().map_err(|_| worker_failed())?;
        consumed
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_keeps_order_and_returns_the_error() {
        let items: Vec<u32> = (0..5000).collect();
        let doubled = map(&items, |i| Ok(i * 2)).unwrap();
        assert_eq!(doubled, items.iter().map(|i| i * 2).collect::<Vec<_>>());
        let failed = map(&items, |i| {
            if *i == 4321 {
                Err(Error::integrity("item", "bad"))
            } else {
                Ok(*i)
            }
        });
        assert!(matches!(failed, Err(Error::Integrity { .. })));
    }

    #[test]
    fn fold_sums_every_item_once() {
        let items: Vec<u64> = (0..5000).collect();
        let sum = fold(&items, || 0u64, |a, i| *a += i, |a, b| *a += b).unwrap();
        assert_eq!(sum, items.iter().sum::<u64>());
        let few = fold(&items[..3], Vec::new, |a, i| a.push(*i), |a, b| a.extend(b)).unwrap();
        assert_eq!(few, vec![0, 1, 2]);
    }

    #[test]
    fn both_runs_both_and_a_side_that_panics_panics_here() {
        for spread in [false, true] {
            let here = std::thread::current().id();
            let (a, b) = both(spread, || (std::thread::current().id(), 1), || 2);
            assert_eq!((a.1, b), (1, 2));
            if threads() >= 2 {
                assert_eq!(a.0 == here, !spread, "a helper thread only when spread");
            }
            let caught = std::panic::catch_unwind(|| both(spread, || panic!("side"), || 0));
            assert!(caught.is_err());
        }
    }

    #[test]
    fn beside_runs_both_and_names_the_side_error_first() {
        for spread in [false, true] {
            let (a, b) = beside(spread, |threads| Ok(threads.max(1)), || Ok("main")).unwrap();
            assert!(a >= 1 && b == "main");
            let r: Result<((), ())> = beside(
                spread,
                |_| Err(Error::integrity("side", "failed")),
                || Err(Error::integrity("main", "failed")),
            );
            assert!(matches!(r, Err(Error::Integrity { what, .. }) if what == "side"));
            let r: Result<((), ())> = beside(spread, |_| Ok(()), || Err(Error::integrity("main", "failed")));
            assert!(matches!(r, Err(Error::Integrity { what, .. }) if what == "main"));
        }
    }

    #[test]
    fn pipeline_consumes_every_item_in_order() {
        let items: Vec<u32> = (0..5000).collect();
        let mut seen = Vec::new();
        pipeline(
            &items,
            |n, i| Ok(i + 1 + n as u32 - *i),
            |i, r| {
                assert_eq!(r, i + 1);
                seen.push(*i);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen, items);
    }

    #[test]
    fn pipeline_stops_at_the_first_error_of_either_side() {
        let items: Vec<u32> = (0..5000).collect();
        let mut consumed = 0;
        let r = pipeline(
            &items,
            |_, i| {
                if *i == 3000 {
                    Err(Error::integrity("item", "cannot seal"))
                } else {
                    Ok(*i)
                }
            },
            |_, _| {
                consumed += 1;
                Ok(())
            },
        );
        assert!(matches!(r, Err(Error::Integrity { .. })));
        assert!(consumed < 3000, "nothing after the failed chunk was consumed");
        let mut consumed = 0;
        let r = pipeline(
            &items,
            |_, i| Ok(*i),
            |i, _| {
                consumed += 1;
                if *i == 10 {
                    Err(Error::integrity("row", "cannot insert"))
                } else {
                    Ok(())
                }
            },
        );
        assert!(matches!(r, Err(Error::Integrity { .. })));
        assert_eq!(consumed, 11, "the consumer's error ends the pipeline");
    }
}

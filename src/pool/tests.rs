//! The pool's own tests: task order, panics, early drops, page jobs.

use super::*;
use std::future::Future;

fn tasks(n: usize) -> Vec<(u64, Task<usize>)> {
    (0..n)
        .map(|i| {
            let task = Box::new(move || {
                std::thread::sleep(std::time::Duration::from_millis((n - i) as u64));
                i * 10
            }) as Task<usize>;
            // Weights out of task order.
            ((i as u64 * 7) % 5, task)
        })
        .collect()
}

#[test]
fn results_come_back_in_task_order() {
    for threads in [1, 2, 3, 8] {
        let pool = Pool::new(threads);
        for n in [0, 1, 2, 5] {
            let (out, local) = pool.run(tasks(n), || 7);
            assert_eq!(local, Ok(7));
            let out: Vec<usize> = out.into_iter().map(Result::unwrap).collect();
            assert_eq!(out, (0..n).map(|i| i * 10).collect::<Vec<_>>());
        }
    }
}

#[test]
fn a_panic_becomes_its_message() {
    let pool = Pool::new(2);
    let panicking: Vec<(u64, Task<u8>)> = vec![
        (1, Box::new(|| 1)),
        (3, Box::new(|| panic!("boom {}", 2))),
        (2, Box::new(|| std::panic::panic_any(3_u32))),
    ];
    let (out, local) = pool.run(panicking, || panic!("local"));
    assert_eq!(local, Err("local".to_string()));
    assert_eq!(out[0], Ok(1));
    assert_eq!(out[1], Err("boom 2".to_string()));
    assert_eq!(out[2], Err("a panic without a message".to_string()));
    // The pool still works.
    let (out, local) = pool.run(vec![(0, Box::new(|| 4)), (9, Box::new(|| 5))], || ());
    assert_eq!(out, vec![Ok(4), Ok(5)]);
    assert_eq!(local, Ok(()));
}

#[test]
fn results_in_order_as_they_come_and_an_early_drop_runs_the_rest() {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    for threads in [1, 2, 4] {
        let pool = Pool::new(threads);
        let ran = Arc::new(AtomicUsize::new(0));
        let counted = |n: usize| -> Vec<(u64, Task<usize>)> {
            (0..n)
                .map(|i| {
                    let ran = Arc::clone(&ran);
                    let task = Box::new(move || {
                        ran.fetch_add(1, SeqCst);
                        i
                    }) as Task<usize>;
                    (i as u64 % 3, task)
                })
                .collect()
        };
        let mut results = pool.submit(counted(6), Take::Needed(0));
        assert_eq!(results.size_hint(), (6, Some(6)));
        assert_eq!(results.next(), Some(Ok(0)));
        assert_eq!(results.next(), Some(Ok(1)));
        drop(results);
        if threads > 1 {
            // Queued tasks all ran before the drop returned.
            assert_eq!(ran.load(SeqCst), 6, "threads={threads}");
        }
        // Nothing stale is left for the next call.
        let out: Vec<_> = pool.submit(counted(5), Take::Lightest).collect();
        assert_eq!(out, (0..5).map(Ok).collect::<Vec<_>>());
    }
}

#[test]
fn page_jobs_come_back_and_a_waiter_helps() {
    for threads in [1, 2, 4] {
        let pool = Pool::new(threads);
        let helpers = pool.page_helpers();
        assert_eq!(helpers.in_flight(), (2 * threads - 1).min(8));
        let tickets: Vec<Ticket<usize>> = (0..50)
            .map(|i| {
                helpers.spawn(move || {
                    if i == 7 {
                        panic!("page {i}");
                    }
                    i * 3
                })
            })
            .collect();
        // A column task queued behind the pages still runs.
        let (out, _) = pool.run(vec![(1, Box::new(|| 5_usize) as Task<usize>)], || ());
        assert_eq!(out, vec![Ok(5)]);
        for (i, ticket) in tickets.into_iter().enumerate().rev() {
            match i {
                7 => assert_eq!(ticket.wait(), Err("page 7".to_string())),
                _ => assert_eq!(ticket.wait(), Ok(i * 3)),
            }
        }
        let (sent, on_workers) = pool.page_counts();
        assert_eq!(sent, 50);
        if threads == 1 {
            // No worker: the waiting thread ran every page.
            assert_eq!(on_workers, 0);
        }
    }
}

#[test]
fn a_page_job_dropped_unrun_reports_it() {
    // One thread: no worker takes the job before it is dropped.
    let pool = Pool::new(1);
    let helpers = pool.page_helpers();
    let ticket = helpers.spawn(|| 1);
    pool.queue.drop_jobs(&pool.group, Class::Page);
    assert!(ticket.wait().is_err());
}

#[test]
fn lanes_run_in_order_and_the_owner_waits_for_them() {
    for threads in [1, 2, 4] {
        let pool = Pool::new(threads);
        let lanes: Vec<Lane<Vec<usize>>> = (0..3).map(|i| pool.lane(i, Vec::new())).collect();
        for step in 0..40 {
            for (i, lane) in lanes.iter().enumerate() {
                lane.push(
                    1,
                    (i * 10) as u64,
                    Box::new(move |seen: &mut Vec<usize>| {
                        if step % 7 == i {
                            std::thread::sleep(std::time::Duration::from_micros(200));
                        }
                        seen.push(step);
                    }),
                );
            }
        }
        pool.help_until(Take::Needed(0), || {
            lanes.iter().all(|l| l.pending() == 0 && l.is_idle())
        });
        for lane in &lanes {
            let seen = lane.with(|s| s.clone()).expect("idle");
            assert_eq!(seen, (0..40).collect::<Vec<_>>(), "threads={threads}");
        }
    }
}

#[test]
fn a_lane_that_panics_drops_the_rest() {
    let pool = Pool::new(2);
    let lane = pool.lane(0, 0_usize);
    lane.push(1, 1, Box::new(|n: &mut usize| *n += 1));
    lane.push(1, 1, Box::new(|_: &mut usize| panic!("lane op")));
    lane.push(1, 1, Box::new(|n: &mut usize| *n += 10));
    pool.help_until(Take::Lightest, || lane.is_idle());
    assert_eq!(lane.panicked().as_deref(), Some("lane op"));
    assert_eq!(lane.pending(), 0);
    assert_eq!(lane.with(|n| *n), Some(1));
    // Later operations are dropped too.
    lane.push(1, 1, Box::new(|n: &mut usize| *n += 100));
    assert_eq!(lane.with(|n| *n), Some(1));
}

/// Polls `future` until it is ready, for at most `limit` (then `None`),
/// with a waker that counts its wakes.
fn poll_for<F: Future>(future: F, limit: std::time::Duration) -> (Option<F::Output>, usize) {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    struct Count(AtomicUsize);
    impl std::task::Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, SeqCst);
        }
    }
    let count = Arc::new(Count(AtomicUsize::new(0)));
    let waker = std::task::Waker::from(Arc::clone(&count));
    let mut cx = std::task::Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    let start = std::time::Instant::now();
    loop {
        if let std::task::Poll::Ready(outcome) = future.as_mut().poll(&mut cx) {
            return (Some(outcome), count.0.load(SeqCst));
        }
        if start.elapsed() > limit {
            return (None, count.0.load(SeqCst));
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

const PATIENCE: std::time::Duration = std::time::Duration::from_secs(10);

#[test]
fn a_driver_job_completes_its_future() {
    let (outcome, _) = poll_for(spawn_driver(|| 6 * 7, 1), PATIENCE);
    assert_eq!(outcome, Some(Ok(42)));
}

/// No worker can be started (every thread start fails): the job is not
/// left in a queue nobody serves; the future runs it on its own task.
#[test]
fn a_driver_job_runs_on_its_task_when_no_worker_starts() {
    let queue = Queue::new(4);
    queue.spawns_fail.store(true, Relaxed);
    let here = std::thread::current().id();
    let completion = driver::spawn_on(&queue, move || std::thread::current().id() == here, 2);
    let (outcome, _) = poll_for(completion, PATIENCE);
    assert_eq!(outcome, Some(Ok(true)), "the job did not run on the task");
    assert_eq!(queue.workers(), 0);
}

/// A job queued while the only worker is busy, then the cap lowered to 0:
/// the worker ends once its job is done, and hands the queued job back to
/// its future (woken), which runs it.
#[test]
fn a_driver_job_left_by_the_last_worker_comes_back() {
    let queue = Queue::new(1);
    let (release, blocked) = std::sync::mpsc::channel::<()>();
    let (started, running) = std::sync::mpsc::channel::<()>();
    let busy = driver::spawn_on(
        &queue,
        move || {
            started.send(()).unwrap();
            blocked.recv().unwrap();
            1
        },
        1,
    );
    running
        .recv_timeout(PATIENCE)
        .expect("the worker never started");
    let queued = driver::spawn_on(&queue, || 2, 1);
    let mut queued = Box::pin(queued);
    let (early, _) = poll_for(queued.as_mut(), std::time::Duration::ZERO);
    assert_eq!(early, None, "the worker is busy");
    queue.set_cap(0);
    release.send(()).unwrap();
    assert_eq!(poll_for(busy, PATIENCE).0, Some(Ok(1)));
    let (outcome, _) = poll_for(queued, PATIENCE);
    assert_eq!(outcome, Some(Ok(2)), "the queued job never ran");
    assert_eq!(queue.workers(), 0);
}

/// A cap lowered while an idle worker looks out for work (the lock not
/// held, so the wake-up finds no one waiting) still ends the worker: it
/// used to go to sleep above the cap until the next job came (seen as
/// `pool::writers_share_a_capped_pool` failing now and then: "1 pool
/// threads after the cap went down to 0").
#[test]
fn a_cap_lowered_while_a_worker_spins_ends_it() {
    for round in 0..200 {
        let queue = Queue::new(1);
        queue.start_workers(1);
        // The new worker finds no job and spins for a while: lower the
        // cap at various points of that window.
        std::thread::sleep(std::time::Duration::from_micros(round % 60));
        queue.set_cap(0);
        let start = std::time::Instant::now();
        while queue.workers() > 0 {
            assert!(
                start.elapsed() < PATIENCE,
                "round {round}: a worker above the cap went on"
            );
            std::thread::yield_now();
        }
    }
}

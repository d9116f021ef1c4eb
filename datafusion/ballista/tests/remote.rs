//! parquet-flba on a Ballista cluster of separate processes: this crate's
//! `parquet-flba-scheduler` and `parquet-flba-executor` binaries started on
//! free local ports, and a *stock* Ballista client
//! (`SessionContext::remote_with_state` over a plain session: the choice
//! of sink is the scheduler's). The files are compared byte for byte with
//! those of an in-process stock cluster of the same shape (one executor,
//! two task slots), and the plan that ran is checked for the sink.

#[path = "../../tests/common/mod.rs"]
mod common;
mod support;

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ballista::prelude::SessionContextExt;
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::SessionContext;
use support::{assert_sink, register, run, standalone, write_ipc};

/// A child process, killed when dropped.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn(program: &str, args: &[String]) -> Process {
    let child = Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    Process(child)
}

/// `n` ports free at the time of the call (held together, so distinct).
fn free_ports<const N: usize>() -> [u16; N] {
    let listeners: Vec<TcpListener> = (0..N)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    std::array::from_fn(|i| listeners[i].local_addr().unwrap().port())
}

/// Waits until something listens on `port` (or the process has exited).
fn wait_for(port: u16, process: &mut Process, what: &str) {
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Some(status) = process.0.try_wait().unwrap() {
            panic!("{what} exited: {status}");
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{what} did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scheduler_and_executor_processes() {
    let [scheduler_port, flight_port, grpc_port] = free_ports();
    let mut scheduler = spawn(
        env!("CARGO_BIN_EXE_parquet-flba-scheduler"),
        &["--port".into(), scheduler_port.to_string()],
    );
    wait_for(scheduler_port, &mut scheduler, "the scheduler");
    let mut executor = spawn(
        env!("CARGO_BIN_EXE_parquet-flba-executor"),
        &[
            "--port".into(),
            flight_port.to_string(),
            "--grpc-port".into(),
            grpc_port.to_string(),
            "--scheduler-port".into(),
            scheduler_port.to_string(),
            "--concurrent-tasks".into(),
            "2".into(),
        ],
    );
    wait_for(flight_port, &mut executor, "the executor");

    let data = common::batches(3, 600);
    let input = common::scratch("remote-input").join("t.arrow");
    write_ipc(&input, &data);
    let client_state = SessionStateBuilder::new()
        .with_config(support::config())
        .with_default_features()
        .build();
    let remote = SessionContext::remote_with_state(
        &format!("df://localhost:{scheduler_port}"),
        client_state,
    )
    .await
    .unwrap();
    let stock = standalone(false).await;
    register(&remote, "t", &input).await;
    register(&stock.ctx, "t", &input).await;

    for (name, sql) in [
        (
            "file",
            "COPY (SELECT * FROM t) TO '{dir}/out.parquet' STORED AS PARQUET",
        ),
        (
            "partitioned",
            "COPY (SELECT * FROM t) TO '{dir}/' STORED AS PARQUET PARTITIONED BY (region)",
        ),
    ] {
        let mut dirs = Vec::new();
        for (ctx, flba) in [(&stock.ctx, false), (&remote, true)] {
            let dir = common::scratch(&format!("remote-{name}-{flba}"));
            let ran = run(ctx, &sql.replace("{dir}", dir.to_str().unwrap()))
                .await
                .unwrap_or_else(|e| panic!("{name} (flba: {flba}): {e}"));
            assert_sink(&ran, flba, 1800);
            dirs.push(dir);
        }
        let (a, b) = (common::files(&dirs[0]), common::files(&dirs[1]));
        assert!(!a.is_empty());
        assert!(a == b, "{name}: the files differ");
    }
    drop(executor);
    drop(scheduler);
}

//! `parquet-flba-executor`: Ballista 55's executor, decoding parquet-flba's
//! sink with its codec (`parquet_flba_ballista::executor_config`), for a
//! `parquet-flba-scheduler`.

mod common;

use std::process::ExitCode;
use std::sync::Arc;

use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};

const USAGE: &str = "\
parquet-flba-executor: a Ballista 55 executor that writes parquet through parquet-flba

Options:
  --bind-host HOST         address to listen on (default 127.0.0.1)
  --port PORT              Arrow Flight port (default 50051)
  --grpc-port PORT         gRPC port the scheduler pushes tasks to (default 50052)
  --external-host HOST     host name the scheduler and clients reach it by
  --scheduler-host HOST    the scheduler's host (default localhost)
  --scheduler-port PORT    the scheduler's port (default 50050)
  --concurrent-tasks N     task slots (default: the number of cores)
  --work-dir DIR           where shuffle files go (default: a temporary directory)";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("parquet-flba-executor: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args = common::Args::parse(
        USAGE,
        &[
            "bind-host",
            "port",
            "grpc-port",
            "external-host",
            "scheduler-host",
            "scheduler-port",
            "concurrent-tasks",
            "work-dir",
        ],
    )?;
    let mut config = ExecutorProcessConfig::default();
    config.bind_host = args.text("bind-host", &config.bind_host);
    config.port = args.number("port", config.port)?;
    config.grpc_port = args.number("grpc-port", config.grpc_port)?;
    config.external_host = args.get("external-host").map(str::to_string);
    config.scheduler_host = args.text("scheduler-host", &config.scheduler_host);
    config.scheduler_port = args.number("scheduler-port", config.scheduler_port)?;
    config.vcores = args.number("concurrent-tasks", config.vcores)?;
    config.work_dir = args.get("work-dir").map(str::to_string);
    let config = parquet_flba_ballista::executor_config(config);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(32 * 1024 * 1024)
        .build()
        .map_err(|e| e.to_string())?;
    println!(
        "parquet-flba executor on {}:{} (gRPC {}), scheduler {}:{}",
        config.bind_host,
        config.port,
        config.grpc_port,
        config.scheduler_host,
        config.scheduler_port
    );
    runtime
        .block_on(start_executor_process(Arc::new(config)))
        .map_err(|e| e.to_string())
}

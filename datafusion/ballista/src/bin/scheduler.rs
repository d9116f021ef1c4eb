//! `parquet-flba-scheduler`: Ballista 55's scheduler, planning parquet
//! writes with parquet-flba's sink and sending them to executors with its
//! codec (`parquet_flba_ballista::scheduler_config`). Run
//! `parquet-flba-executor` processes against it; clients connect with
//! `SessionContext::remote("df://HOST:PORT")`.

mod common;

use std::process::ExitCode;
use std::sync::Arc;

use ballista_core::BALLISTA_VERSION;
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::start_server;

const USAGE: &str = "\
parquet-flba-scheduler: a Ballista 55 scheduler whose parquet writes go through parquet-flba

Options:
  --bind-host HOST       address to listen on (default 127.0.0.1)
  --port PORT            port to listen on (default 50050)
  --external-host HOST   host name executors and clients reach it by (default localhost)";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("parquet-flba-scheduler: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args = common::Args::parse(USAGE, &["bind-host", "port", "external-host"])?;
    let mut config = SchedulerConfig::default();
    config.bind_host = args.text("bind-host", &config.bind_host);
    config.bind_port = args.number("port", config.bind_port)?;
    config.external_host = args.text("external-host", &config.external_host);
    let address = format!("{}:{}", config.bind_host, config.bind_port)
        .parse()
        .map_err(|e| format!("--bind-host/--port: {e}"))?;
    let config = parquet_flba_ballista::scheduler_config(config);
    // Large stacks, as Ballista's own scheduler binary has (deep plans).
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(32 * 1024 * 1024)
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let cluster = BallistaCluster::new_from_config(&config)
            .await
            .map_err(|e| e.to_string())?;
        println!("parquet-flba scheduler (Ballista {BALLISTA_VERSION}) listening on {address}",);
        // Ctrl-C stops it (as Ballista's executor stops), also where the
        // shell that started it ignores SIGINT for background jobs.
        tokio::select! {
            served = start_server(cluster, address, Arc::new(config)) => {
                served.map_err(|e| e.to_string())
            }
            signal = tokio::signal::ctrl_c() => {
                println!("parquet-flba scheduler: stopped");
                signal.map_err(|e| e.to_string())
            }
        }
    })
}

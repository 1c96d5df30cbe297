//! `lego-studio serve`: the app's assets (embedded at build time) and the JSON API ([`crate::api`]).
//!
//! Bounded everywhere: one acceptor thread hands connections to a fixed pool of workers through a bounded
//! queue; a connection that finds the queue full is answered `503` at once by the acceptor, and one that
//! waited in the queue longer than the request timeout gets `503` from the worker without being run. Reading
//! a request has the same deadline and a size limit ([`crate::http`]). Each worker thread owns a worker
//! *process* ([`crate::pool`]) that runs its API requests, one at a time, in an MLIR context of its own: a
//! panic there is answered 500 with its message, and a process that dies (LLVM's fatal errors end the process
//! they happen in) or computes past `--compute-timeout` is answered 500 with what it printed and replaced —
//! the server itself never runs the pipeline.

use crate::{api, assets, http, pool};
use std::{
    net::{TcpListener, TcpStream},
    panic::{catch_unwind, AssertUnwindSafe},
    sync::{
        mpsc::{sync_channel, Receiver, TrySendError},
        Arc, Mutex,
    },
    time::{Duration, Instant},
};

pub struct Config {
    pub host: String,
    pub port: u16,
    pub workers: usize,
    pub queue: usize,
    pub max_body: usize,
    pub timeout: Duration,
    /// How long one API request may compute in its worker process before the process is stopped.
    pub compute_timeout: Duration,
    /// `LEGO_STUDIO_TEST_HOOKS=1` in the environment of `serve`: the compile stages that provoke a panic, a
    /// fatal error and a hang in the worker process exist (for test/studio only; never listed).
    pub test_hooks: bool,
    /// The command that starts this same tool again, to which the worker processes' arguments are appended:
    /// the binary's own path, or — when lego-studio runs as the Python package's console script, where
    /// `current_exe()` is the Python interpreter — the interpreter with the arguments that reach this driver.
    pub self_command: Vec<std::ffi::OsString>,
}

impl Default for Config {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2);
        Config {
            host: "127.0.0.1".into(),
            port: 8080,
            workers: cores.clamp(2, 8),
            queue: 256,
            max_body: 1 << 20,
            timeout: Duration::from_secs(10),
            compute_timeout: Duration::from_secs(60),
            test_hooks: std::env::var("LEGO_STUDIO_TEST_HOOKS").is_ok_and(|value| value == "1"),
            self_command: std::env::current_exe().map(|path| vec![path.into_os_string()]).unwrap_or_default(),
        }
    }
}

/// A worker thread's stack (it reads requests and talks to its worker process; the MLIR work is there).
const WORKER_STACK: usize = 2 << 20;

/// Descriptors `serve` asks for: the queue, the connections being answered 503 and lingering, and MLIR's own
/// files all need one; Debian's default soft limit of 1 024 is below a burst of 1 000 connections.
const OPEN_FILES: u64 = 16_384;

/// Raises the soft open-file limit towards [`OPEN_FILES`] (never above the hard limit; failure is harmless:
/// accepting then waits for descriptors to be freed).
fn raise_open_file_limit() {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit/setrlimit only read and write the struct passed.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && (limit.rlim_cur as u64) < OPEN_FILES {
            limit.rlim_cur = (OPEN_FILES as libc::rlim_t).min(limit.rlim_max);
            let _ = libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}

/// Serves until the process is stopped; `Err` when the address cannot be bound or no worker starts.
pub fn serve(config: Config) -> Result<(), String> {
    raise_open_file_limit();
    let listener = TcpListener::bind((config.host.as_str(), config.port))
        .map_err(|error| format!("cannot listen on {}:{}: {error}", config.host, config.port))?;
    let address = listener.local_addr().map_err(|error| error.to_string())?;
    let (sender, receiver) = sync_channel::<(TcpStream, Instant)>(config.queue);
    let (rejecter, rejected) = sync_channel::<TcpStream>(REJECT_QUEUE);
    std::thread::Builder::new()
        .name("studio-rejecter".into())
        .spawn(move || reject(&rejected))
        .map_err(|error| format!("cannot start the rejecter thread: {error}"))?;
    let receiver = Arc::new(Mutex::new(receiver));
    let config = Arc::new(config);
    for index in 0..config.workers {
        let receiver = Arc::clone(&receiver);
        let config = Arc::clone(&config);
        std::thread::Builder::new()
            .name(format!("studio-worker-{index}"))
            .stack_size(WORKER_STACK)
            .spawn(move || worker(&receiver, &config, index))
            .map_err(|error| format!("cannot start a worker thread: {error}"))?;
    }
    // The first line of output, flushed: scripts (the tests) read the port from it when started with --port 0.
    println!(
        "lego-studio: serving http://{address}/ ({} workers, queue {}, body limit {} bytes, timeout {:?}, compute timeout {:?}{})",
        config.workers,
        config.queue,
        config.max_body,
        config.timeout,
        config.compute_timeout,
        if config.test_hooks { ", test hooks on" } else { "" }
    );
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(stream) => stream,
            Err(_) => {
                // Out of descriptors, say: let the workers close some.
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        match sender.try_send((stream, Instant::now())) {
            Ok(()) => {}
            Err(TrySendError::Full((stream, _))) => {
                if let Err(TrySendError::Full(mut stream)) = rejecter.try_send(stream) {
                    // Even the rejecter is behind: answer here, without lingering.
                    http::respond(&mut stream, &busy(), Duration::from_millis(100), false);
                }
            }
            Err(TrySendError::Disconnected(_)) => return Err("every worker has stopped".into()),
        }
    }
    Ok(())
}

fn busy() -> http::Response {
    http::Response::error(503, "the server is busy: try again")
}

/// Connections the rejecter may have waiting, and how many it may hold open while their clients read the 503.
const REJECT_QUEUE: usize = 4096;
const LINGERING: usize = 4096;
/// How long a rejected connection is kept open (its incoming bytes read and dropped) after the 503 is sent:
/// closing a socket with unread input makes the kernel send a reset, which can destroy the answer before the
/// client reads it.
const LINGER: Duration = Duration::from_millis(500);

/// Answers `503` to each connection the queue had no room for, at once, then keeps it open for [`LINGER`]
/// without blocking on any one of them.
fn reject(rejected: &Receiver<TcpStream>) {
    let mut lingering: std::collections::VecDeque<(TcpStream, Instant)> = std::collections::VecDeque::new();
    loop {
        let wait = if lingering.is_empty() { Duration::from_secs(3600) } else { Duration::from_millis(10) };
        match rejected.recv_timeout(wait) {
            Ok(mut stream) => {
                http::respond(&mut stream, &busy(), Duration::from_millis(100), false);
                if stream.set_nonblocking(true).is_ok() {
                    if lingering.len() >= LINGERING {
                        lingering.pop_front();
                    }
                    lingering.push_back((stream, Instant::now() + LINGER));
                }
                // Take every waiting connection before sweeping.
                continue;
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return,
        }
        let now = Instant::now();
        lingering.retain_mut(|(stream, until)| *until > now && http::read_available(stream));
    }
}

fn worker(receiver: &Mutex<Receiver<(TcpStream, Instant)>>, config: &Config, index: usize) {
    let mut process: Option<pool::WorkerProcess> = None;
    loop {
        let job = match receiver.lock() {
            Ok(receiver) => receiver.recv(),
            Err(_) => return,
        };
        let Ok((mut stream, accepted)) = job else { return };
        if accepted.elapsed() > config.timeout {
            let late = http::Response::error(503, "the request waited too long for a worker: try again");
            http::respond(&mut stream, &late, Duration::from_millis(100), true);
            continue;
        }
        let deadline = accepted + config.timeout;
        let request = match http::read_request(&mut stream, config.max_body, deadline) {
            Ok(request) => request,
            Err(http::ReadError::Gone) => continue,
            Err(http::ReadError::Answer(response)) => {
                http::respond(&mut stream, &response, config.timeout, true);
                continue;
            }
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| route(&request, &mut process, config, index)));
        let response = outcome.unwrap_or_else(|payload| {
            // Whatever state the worker process was left in is not reused.
            process = None;
            http::Response::error(500, format!("internal error while handling the request: {}", panic_message(&*payload)))
        });
        http::respond(&mut stream, &response, config.timeout, false);
    }
}

/// The text of a panic's payload (`panic!("…")` gives a `&str` or a `String`).
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .map(|text| text.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into());
    format!("{text} (a bug: please report the input)")
}

fn route(request: &http::Request, process: &mut Option<pool::WorkerProcess>, config: &Config, index: usize) -> http::Response {
    let api = |process: &mut Option<pool::WorkerProcess>, endpoint: pool::Endpoint| pool::run(process, config, index, endpoint, &request.body);
    match (request.method.as_str(), request.path.as_str()) {
        ("GET", "/api/stages") => http::Response::json(200, &api::stages(&lego_passes::Registry::default())),
        ("POST", "/api/parse") => api(process, pool::Endpoint::Parse),
        ("POST", "/api/compile") => api(process, pool::Endpoint::Compile),
        (_, "/api/parse" | "/api/compile") => http::Response::error(405, format!("{} wants POST", request.path)),
        (_, "/api/stages") => http::Response::error(405, "/api/stages wants GET"),
        (_, path) if path.starts_with("/api/") => http::Response::error(404, format!("no API endpoint {path}")),
        ("GET", path) => match assets::get(path) {
            Some((content_type, body)) => http::Response::new(200, content_type, body.to_vec()),
            None => http::Response::new(404, "text/plain; charset=utf-8", format!("{path}: not found\n")),
        },
        (method, _) => http::Response::error(405, format!("method {method} is not served here")),
    }
}

/// The hidden command a worker process runs (`lego-studio __serve-worker [--test-hooks]`).
pub const WORKER_COMMAND: &str = pool::WORKER_COMMAND;

/// The body of a worker process.
pub fn worker_process(args: &[String]) -> std::process::ExitCode {
    pool::worker_main(args)
}

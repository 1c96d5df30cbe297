//! Worker processes of `lego-studio serve`: each worker thread of the server runs its API requests in a
//! child process of its own (`lego-studio __serve-worker`), started at its first API request and kept for
//! the next ones (its MLIR context is reused: [`api::Engine`] replaces it every few hundred requests).
//!
//! Why processes: LLVM reports a fatal error (a backend that cannot select an instruction, say) by printing
//! `LLVM ERROR: …` and ending the process — no unwinding a thread could catch. In a child process that ends
//! the child only: the server answers that request 500 with the message the child printed and starts a new
//! child for the next request. The same holds for anything else that kills a process (a stack overflow, an
//! allocation the system refuses), and a request computing longer than `--compute-timeout` is stopped by
//! killing its child. A pool (not one process per request) keeps the cost of starting a process and an MLIR
//! context off every request: it is paid once per worker, and again only after a death.
//!
//! The protocol, on the child's stdin and stdout: a request is `[endpoint: u8][length: u64 LE][body]`, an
//! answer `[status: u16 LE][content type: u8][length: u64 LE][body]`. The child's stderr is copied to the
//! server's (each line prefixed with the worker's name), and its last lines are kept for the 500 of a death.

use crate::{api, http, server::Config};
use std::{
    io::{BufRead, BufReader, Read, Write},
    process::{Child, ChildStdin, Command, ExitCode, Stdio},
    sync::{
        mpsc::{channel, Receiver, RecvTimeoutError},
        Arc, Mutex,
    },
    time::Duration,
};

pub const WORKER_COMMAND: &str = "__serve-worker";

/// The stack of the worker process's request thread: the dialect's parser and verifier recurse on nested
/// regions, the algebra once per nesting level of a layout (at most `convert::MAX_DEPTH`).
const STACK: usize = 256 << 20;

/// The longest piece of a child's stderr line copied at once (a longer line is copied in pieces).
const STDERR_LINE: u64 = 8192;

/// The most bytes of a child's stderr kept for the answer to a request it died on.
const STDERR_TAIL: usize = 4096;

/// Test hooks (only with `LEGO_STUDIO_TEST_HOOKS=1`): compile stages that provoke each way a request can fail.
pub const HOOK_PANIC: &str = "test:panic";
pub const HOOK_FATAL: &str = "test:fatal";
pub const HOOK_HANG: &str = "test:hang";

#[derive(Clone, Copy)]
pub enum Endpoint {
    Parse = 1,
    Compile = 2,
}

/// A running child and the threads reading its output.
pub struct WorkerProcess {
    child: Child,
    stdin: ChildStdin,
    answers: Receiver<http::Response>,
    stderr: Arc<Mutex<Vec<u8>>>,
    stderr_done: Receiver<()>,
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(config: &Config, index: usize) -> Result<WorkerProcess, String> {
    let Some((program, arguments)) = config.self_command.split_first() else {
        return Err("no command to start a worker process with (the lego-studio binary was not found)".into());
    };
    let mut command = Command::new(program);
    command.args(arguments).arg(WORKER_COMMAND);
    if config.test_hooks {
        command.arg("--test-hooks");
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| format!("cannot start a worker process: {error}"))?;
    let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take()) else {
        let _ = child.kill();
        return Err("a worker process has no pipes".into());
    };
    let (answer_sender, answers) = channel();
    std::thread::Builder::new()
        .name(format!("studio-worker-{index}-out"))
        .spawn(move || {
            let mut stdout = stdout;
            while let Some(answer) = read_answer(&mut stdout) {
                if answer_sender.send(answer).is_err() {
                    return;
                }
            }
        })
        .map_err(|error| format!("cannot start a reader thread: {error}"))?;
    let tail = Arc::new(Mutex::new(Vec::new()));
    let (done_sender, stderr_done) = channel();
    let kept = Arc::clone(&tail);
    std::thread::Builder::new()
        .name(format!("studio-worker-{index}-err"))
        .spawn(move || {
            let mut lines = BufReader::new(stderr);
            let mut line = Vec::new();
            // At most STDERR_LINE bytes at a time: a child printing without line breaks holds no more here.
            while (&mut lines).take(STDERR_LINE).read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
                let end = if line.ends_with(b"\n") { "" } else { "\n" };
                eprint!("lego-studio: worker {index}: {}{end}", String::from_utf8_lossy(&line));
                if let Ok(mut tail) = kept.lock() {
                    tail.extend_from_slice(&line);
                    let excess = tail.len().saturating_sub(STDERR_TAIL);
                    tail.drain(..excess);
                }
                line.clear();
            }
            let _ = done_sender.send(());
        })
        .map_err(|error| format!("cannot start a reader thread: {error}"))?;
    Ok(WorkerProcess { child, stdin, answers, stderr: tail, stderr_done })
}

/// Runs one request in `process` (started when there is none); a death or a timeout is answered 500 and the
/// process dropped (the next request starts another).
pub fn run(process: &mut Option<WorkerProcess>, config: &Config, index: usize, endpoint: Endpoint, body: &[u8]) -> http::Response {
    if process.is_none() {
        match start(config, index) {
            Ok(started) => *process = Some(started),
            Err(message) => return http::Response::error(500, message),
        }
    }
    let Some(worker) = process.as_mut() else { return http::Response::error(500, "no worker process") };
    if let Ok(mut tail) = worker.stderr.lock() {
        tail.clear();
    }
    let mut frame = Vec::with_capacity(body.len() + 9);
    frame.push(endpoint as u8);
    frame.extend_from_slice(&(body.len() as u64).to_le_bytes());
    frame.extend_from_slice(body);
    let sent = worker.stdin.write_all(&frame).and_then(|_| worker.stdin.flush());
    let answer = match sent {
        Ok(()) => worker.answers.recv_timeout(config.compute_timeout),
        Err(_) => Err(RecvTimeoutError::Disconnected),
    };
    match answer {
        Ok(response) => response,
        Err(RecvTimeoutError::Timeout) => {
            *process = None;
            http::Response::error(
                500,
                format!(
                    "the request computed for longer than {} s (serve --compute-timeout): stopped",
                    config.compute_timeout.as_secs()
                ),
            )
        }
        Err(RecvTimeoutError::Disconnected) => {
            let status = worker.child.wait().map(|status| describe_exit(&status)).unwrap_or_else(|error| error.to_string());
            // The child has ended: its stderr reaches end of file at once (a grandchild holding it aside).
            let _ = worker.stderr_done.recv_timeout(Duration::from_secs(2));
            let printed = worker.stderr.lock().map(|tail| String::from_utf8_lossy(&tail).trim().to_string()).unwrap_or_default();
            *process = None;
            let printed = if printed.is_empty() { "nothing".to_string() } else { format!("\"{printed}\"") };
            http::Response::error(
                500,
                format!("the worker process handling the request died ({status}) after printing {printed}; a new one serves the next request"),
            )
        }
    }
}

fn describe_exit(status: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt as _;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit status {code}"),
        (None, Some(signal)) => format!("signal {signal}{}", signal_name(signal)),
        _ => status.to_string(),
    }
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGABRT => ", SIGABRT",
        libc::SIGSEGV => ", SIGSEGV",
        libc::SIGKILL => ", SIGKILL",
        libc::SIGBUS => ", SIGBUS",
        libc::SIGILL => ", SIGILL",
        libc::SIGFPE => ", SIGFPE",
        _ => "",
    }
}

fn read_exact<const N: usize>(input: &mut impl Read) -> Option<[u8; N]> {
    let mut bytes = [0u8; N];
    input.read_exact(&mut bytes).ok().map(|_| bytes)
}

const CONTENT_TYPES: [&str; 2] = ["application/json", "text/plain; charset=utf-8"];

fn read_answer(input: &mut impl Read) -> Option<http::Response> {
    let status = u16::from_le_bytes(read_exact::<2>(input)?);
    let content_type = *CONTENT_TYPES.get(read_exact::<1>(input)?[0] as usize)?;
    let length = u64::from_le_bytes(read_exact::<8>(input)?);
    let mut body = Vec::new();
    input.take(length).read_to_end(&mut body).ok()?;
    (body.len() as u64 == length).then(|| http::Response::new(status, content_type, body))
}

fn write_answer(output: &mut impl Write, response: &http::Response) -> std::io::Result<()> {
    let content_type = CONTENT_TYPES.iter().position(|known| *known == response.content_type).unwrap_or(1) as u8;
    let mut frame = Vec::with_capacity(response.body.len() + 11);
    frame.extend_from_slice(&response.status.to_le_bytes());
    frame.push(content_type);
    frame.extend_from_slice(&(response.body.len() as u64).to_le_bytes());
    frame.extend_from_slice(&response.body);
    output.write_all(&frame)?;
    output.flush()
}

/// `lego-studio __serve-worker`: answers requests from stdin until it closes.
pub fn worker_main(args: &[String]) -> ExitCode {
    let test_hooks = args.iter().any(|arg| arg == "--test-hooks");
    // The server may be killed without a word: a child must not outlive it (one computing has no reason to
    // read its stdin and notice).
    #[cfg(target_os = "linux")]
    unsafe {
        // SAFETY: prctl(PR_SET_PDEATHSIG) only sets this process's own attribute.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
    }
    let thread = std::thread::Builder::new().name("studio-request".into()).stack_size(STACK).spawn(move || serve_requests(test_hooks));
    match thread.map(|thread| thread.join()) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    }
}

fn serve_requests(test_hooks: bool) {
    let mut input = std::io::stdin().lock();
    let mut output = std::io::stdout().lock();
    let mut engine: Option<api::Engine> = None;
    loop {
        let Some(endpoint) = read_exact::<1>(&mut input) else { return };
        let Some(length) = read_exact::<8>(&mut input).map(u64::from_le_bytes) else { return };
        let mut body = Vec::new();
        if input.by_ref().take(length).read_to_end(&mut body).is_err() || body.len() as u64 != length {
            return;
        }
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if engine.is_none() {
                match api::Engine::new() {
                    Ok(created) => engine = Some(created),
                    Err(message) => return http::Response::error(500, format!("cannot create an MLIR context: {message}")),
                }
            }
            let Some(engine) = engine.as_mut() else { return http::Response::error(500, "no MLIR context") };
            match endpoint[0] {
                1 => engine.parse(&body),
                2 if test_hooks => hooks(&body).unwrap_or_else(|| engine.compile(&body)),
                2 => engine.compile(&body),
                other => http::Response::error(500, format!("unknown endpoint {other} in the worker protocol")),
            }
        }));
        let response = outcome.unwrap_or_else(|payload| {
            // Whatever state the context was left in is not reused.
            engine = None;
            http::Response::error(
                500,
                format!("internal error while handling the request: {}", crate::server::panic_message(&*payload)),
            )
        });
        if engine.as_ref().is_some_and(api::Engine::worn_out) {
            engine = None;
        }
        if write_answer(&mut output, &response).is_err() {
            return;
        }
    }
}

/// The test hooks' stages (a compile request whose `stage` is one of them); `None` for any other request.
fn hooks(body: &[u8]) -> Option<http::Response> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    match value.get("stage")?.as_str()? {
        HOOK_PANIC => panic!("test hook: a panic inside a request"),
        HOOK_FATAL => {
            // What LLVM's report_fatal_error does: the message on stderr, then the process ends.
            eprintln!("LLVM ERROR: test hook: a fatal error inside a request");
            std::process::abort();
        }
        HOOK_HANG => loop {
            std::thread::sleep(Duration::from_secs(1));
        },
        _ => None,
    }
}

package dev.quota.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One real redis-server process on 127.0.0.1 and a free port, in its own temp working directory,
 * without persistence ({@code --save ''}, {@code --appendonly no}), with {@code DEBUG} allowed on every
 * version (Redis 7 gets {@code --enable-debug-command local}). Its stdout and stderr go to
 * {@code redis.log} in that directory. Faults to inject: {@link #kill()}, {@link #stop()},
 * {@link #restart()}, {@link #pause(Duration)} and {@link #freeze()}. A JVM shutdown hook kills every server still running,
 * so no process outlives the JVM; still, close it (try-with-resources) to free the port and the directory.
 */
public final class RedisServer implements AutoCloseable {

    /** How long {@link #start()} and {@link #restart()} wait for the first PONG: 10 seconds. */
    public static final Duration START_TIMEOUT = Duration.ofSeconds(10);

    private static final Logger log = LoggerFactory.getLogger(RedisServer.class);
    private static final String HOST = ServerArgs.HOST;
    private static final int PORT_ATTEMPTS = 5;
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);

    private final Path dir;
    private final int port;
    private final List<String> command;
    private volatile Process process;
    private volatile boolean frozen;
    private boolean closed;

    private RedisServer(Path dir, int port, List<String> command) {
        this.dir = dir;
        this.port = port;
        this.command = command;
    }

    /** Starts a standalone server and waits until it answers PING (at most {@link #START_TIMEOUT}). */
    public static RedisServer start() {
        return start(List.of());
    }

    /**
     * Starts a server with extra command-line arguments appended after the defaults, e.g.
     * {@code List.of("--maxmemory", "10mb")}. With {@code --cluster-enabled yes} the chosen port also
     * has port + 10000 free, for the cluster bus.
     *
     * @throws IllegalStateException if the server exits or does not answer PING within
     *     {@link #START_TIMEOUT}; the message holds the server's log
     */
    public static RedisServer start(List<String> extraArgs) {
        return start(null, null, extraArgs);
    }

    /**
     * Starts a server whose first argument is a config file, written into its working directory
     * (sentinel mode needs one it can rewrite). {@code configName} and {@code configText} may be null.
     */
    static RedisServer start(String configName, String configText, List<String> extraArgs) {
        Path dir = WorkDir.create();
        try {
            if (configName != null) {
                Files.writeString(dir.resolve(configName), configText, StandardCharsets.UTF_8);
            }
            boolean clusterBus = ServerArgs.isClusterEnabled(extraArgs);
            Path binary = RedisBinary.resolve();
            RedisVersion version = RedisBinary.version();
            PortTaken lastConflict = null;
            for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
                int port = FreePort.find(clusterBus);
                RedisServer server = new RedisServer(dir, port,
                        ServerArgs.commandLine(binary, version, dir, port, configName, extraArgs));
                try {
                    server.launch(false);
                    return server;
                } catch (PortTaken e) {
                    // someone grabbed the port between our probe and redis' bind: pick another
                    lastConflict = e;
                }
            }
            throw new IllegalStateException("no port could be bound after " + PORT_ATTEMPTS + " attempts",
                    lastConflict);
        } catch (IOException e) {
            WorkDir.delete(dir);
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            WorkDir.delete(dir);
            throw e;
        }
    }

    /** The TCP port, fixed for the life of this object (also across {@link #restart()}). */
    public int port() {
        return port;
    }

    /** Always {@code 127.0.0.1}. */
    public String host() {
        return HOST;
    }

    /** {@code redis://127.0.0.1:PORT}. */
    public String uri() {
        return "redis://" + HOST + ":" + port;
    }

    /** The file that receives the server's stdout and stderr (appended to across restarts). */
    public Path logFile() {
        return dir.resolve("redis.log");
    }

    /** Whether the process is alive (it may still be booting only inside start/restart). */
    public boolean isRunning() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /** Kills the process with SIGKILL, as a crash would, and waits until it has exited. */
    public synchronized void kill() {
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
            Await.exit(p, STOP_TIMEOUT);
            process = null;
            LiveServers.unregister(this);
        }
    }

    /** Stops the process politely ({@code SHUTDOWN NOSAVE}, else SIGTERM, else SIGKILL) and waits. */
    public synchronized void stop() {
        Process p = process;
        if (p == null) {
            return;
        }
        if (frozen && p.isAlive()) {
            thaw();
        }
        if (p.isAlive()) {
            try (RespClient client = RespClient.connect(HOST, port, Duration.ofSeconds(1))) {
                client.command("SHUTDOWN", "NOSAVE");
            } catch (RuntimeException expected) {
                // a successful SHUTDOWN closes the connection without a reply
            }
            if (!Await.exit(p, STOP_TIMEOUT)) {
                p.destroy();
                if (!Await.exit(p, STOP_TIMEOUT)) {
                    p.destroyForcibly();
                    Await.exit(p, STOP_TIMEOUT);
                }
            }
        }
        process = null;
        LiveServers.unregister(this);
    }

    /**
     * Stalls the server for {@code duration} with {@code DEBUG SLEEP}, as a long fork or a frozen host
     * would: the process stays up with its data and connections, but answers nobody until the time is up.
     * Blocks the calling thread as long (run it on another thread to keep a test going meanwhile). E.g.
     * {@code pause(Duration.ofMillis(1500))}: every command sent in those 1.5 s is answered after them.
     *
     * @throws IllegalArgumentException if duration is negative
     * @throws IllegalStateException if the server is not running
     * @throws UncheckedIOException if the server cannot be reached
     */
    public void pause(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("pause must be >= 0 but was " + duration);
        }
        if (!isRunning()) {
            throw new IllegalStateException("server on port " + port + " is not running");
        }
        String seconds = BigDecimal.valueOf(duration.toMillis(), 3).toPlainString();
        // the reply comes when the sleep ends: read it with time to spare
        try (RespClient client = RespClient.connect(HOST, port, duration.plus(STOP_TIMEOUT))) {
            client.command("DEBUG", "SLEEP", seconds);
        }
    }

    /**
     * Stops the process with SIGSTOP, as a frozen host or a stopped container would: connections stay
     * open, commands are accepted by the kernel and never answered, until {@link #thaw()} (SIGCONT).
     * Unlike {@link #pause(Duration)}, the server does not even answer once the freeze ends on its own:
     * it lasts until thawed. {@link #stop()} and {@link #close()} thaw it first.
     *
     * @throws IllegalStateException if the server is not running or the signal cannot be sent
     */
    public void freeze() {
        signal("-STOP");
        frozen = true;
    }

    /**
     * Lets a {@link #freeze() frozen} server run again (SIGCONT); it answers what was sent meanwhile.
     *
     * @throws IllegalStateException if the server is not running or the signal cannot be sent
     */
    public void thaw() {
        signal("-CONT");
        frozen = false;
    }

    private void signal(String signal) {
        Process p = process;
        if (p == null || !p.isAlive()) {
            throw new IllegalStateException("server on port " + port + " is not running");
        }
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(p.pid())).redirectErrorStream(true).start();
            if (!kill.waitFor(STOP_TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
                    || kill.exitValue() != 0) {
                kill.destroyForcibly();
                throw new IllegalStateException("kill " + signal + " " + p.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling the server on port " + port, e);
        }
    }

    /**
     * Starts the server again on the same port with empty data (killing it first if it runs), and waits
     * until it answers PING. Cluster nodes keep their {@code nodes.conf}, sentinels their config.
     *
     * @throws IllegalStateException if closed, or if it does not come up (e.g. the port was taken)
     */
    public synchronized void restart() {
        if (closed) {
            throw new IllegalStateException("server on port " + port + " is closed");
        }
        kill();
        try {
            Files.deleteIfExists(dir.resolve("dump.rdb"));
            Files.deleteIfExists(dir.resolve("appendonly.aof"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        launch(true);
    }

    /** Stops the server and deletes its working directory. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        stop();
        WorkDir.delete(dir);
    }

    @Override
    public String toString() {
        return "RedisServer[" + uri() + (isRunning() ? ", running" : ", stopped") + "]";
    }

    /** Called by the shutdown hook: no locks, no waiting beyond a moment. */
    void destroyOnJvmExit() {
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
            Await.exit(p, Duration.ofSeconds(1));
        }
        WorkDir.delete(dir);
    }

    /** The last part of the log, for error messages. */
    String logTail() {
        return WorkDir.tail(logFile());
    }

    private void launch(boolean appendLog) {
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(appendLog ? Redirect.appendTo(logFile().toFile()) : Redirect.to(logFile().toFile()));
        Process p;
        try {
            p = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command.get(0), e);
        }
        process = p;
        LiveServers.register(this);
        try {
            Await.result(START_TIMEOUT, () -> {
                if (!p.isAlive()) {
                    Await.exit(p, STOP_TIMEOUT);
                    String logText = logTail();
                    String message = "redis-server on port " + port + " exited with " + p.exitValue()
                            + " during startup; log:\n" + logText;
                    throw logText.contains("Address already in use") && !appendLog
                            ? new PortTaken(message) : new IllegalStateException(message);
                }
                try (RespClient client = RespClient.connect(HOST, port, Duration.ofSeconds(1))) {
                    return "PONG".equals(client.command("PING")) ? Boolean.TRUE : null;
                }
            }, () -> "redis-server on port " + port + " to answer PING; log:\n" + logTail());
        } catch (RuntimeException e) {
            p.destroyForcibly();
            Await.exit(p, STOP_TIMEOUT);
            process = null;
            LiveServers.unregister(this);
            throw e;
        }
        log.debug("redis-server up at {} in {}", uri(), dir);
    }

    /** Startup failed because the port was taken: worth another try with another port. */
    private static final class PortTaken extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        PortTaken(String message) {
            super(message);
        }
    }
}

package dev.quota.testkit;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of every redis-server the testkit starts, standalone, sentinel or cluster node:
 * loopback only, no persistence, and whatever the binary's release needs so that tests behave the same
 * on Redis 6.2 and 7.x.
 */
final class ServerArgs {

    static final String HOST = "127.0.0.1";

    private ServerArgs() {
    }

    /**
     * {@code binary [config] --port P --bind 127.0.0.1 --dir D --save '' --appendonly no [by version] [extra]}.
     * The caller's arguments come last, so they win over the defaults.
     */
    static List<String> commandLine(Path binary, RedisVersion version, Path dir, int port, String configName,
            List<String> extraArgs) {
        List<String> command = new ArrayList<>();
        command.add(binary.toString());
        if (configName != null) {
            command.add(dir.resolve(configName).toString());
        }
        command.addAll(List.of("--port", Integer.toString(port), "--bind", HOST, "--dir", dir.toString(),
                "--save", "", "--appendonly", "no"));
        command.addAll(forVersion(version));
        command.addAll(extraArgs);
        return List.copyOf(command);
    }

    /**
     * What a release needs beyond the defaults so that tests behave as on 6.2. Redis 7.0:
     * <ul>
     *   <li>refuses {@code DEBUG} (which tests use to stall a server: {@code DEBUG SLEEP}) with "ERR DEBUG
     *       command not allowed" unless started with {@code --enable-debug-command}; {@code local} allows it
     *       from loopback connections, which all of ours are;
     *   <li>syncs replicas diskless by default, and then waits {@code repl-diskless-sync-delay} (5 s) for
     *       more replicas before it sends a new one its data: a sentinel topology took 5 s instead of 2 to
     *       start, and a restarted node as long to become a replica again. Delay 0 starts the sync at once.
     * </ul>
     * Redis 6.2 allows DEBUG always, and would refuse to start on the unknown option.
     */
    static List<String> forVersion(RedisVersion version) {
        return version.isAtLeast(7, 0)
                ? List.of("--enable-debug-command", "local", "--repl-diskless-sync-delay", "0")
                : List.of();
    }

    /** Whether the arguments turn on cluster mode ({@code --cluster-enabled yes}). */
    static boolean isClusterEnabled(List<String> args) {
        int i = args.indexOf("--cluster-enabled");
        return i >= 0 && i + 1 < args.size() && args.get(i + 1).equalsIgnoreCase("yes");
    }
}

package dev.quota.consumer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A Jakarta EE server that a consumer project's WAR is deployed on, as its own documentation says
 * to deploy and start it. The project's {@code mvn package} leaves the server in its
 * {@code target/} (unpacked once per build) beside {@code target/bank.war}; the server binds
 * 127.0.0.1 only, on free ports, and the WAR answers under {@link #API}.
 */
enum EeServer {

    /** {@code java -jar payara-micro.jar --deploy bank.war}, without clustering. */
    PAYARA_MICRO("payara-micro-6", "Payara Micro 6.2024.12", "ready in",
            List.of("HTTP/1.1 429 CUSTOM", "HTTP/1.1 422 CUSTOM")) {
        @Override
        List<String> command(Path target, int port) {
            return List.of(java(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-jar",
                    target.resolve("payara-micro.jar").toString(), "--deploy", target.resolve("bank.war").toString(),
                    "--contextroot", "bank", "--port", Integer.toString(port), "--interfaces", "127.0.0.1",
                    "--nocluster", "--nohostaware", "--rootdir", target.resolve("payara-root").toString());
        }

        @Override
        Path workingDirectory(Path target) {
            return target;
        }
    },

    /** {@code bin/standalone.sh} with the WAR in {@code standalone/deployments}, every port a free one. */
    WILDFLY("wildfly-38", "WildFly 38.0.1.Final", "WFLYSRV0025",
            List.of("HTTP/1.1 429 Too Many Requests", "HTTP/1.1 422 Unprocessable Entity")) {
        @Override
        List<String> command(Path target, int port) {
            Path home = target.resolve("wildfly-38.0.1.Final");
            copy(target.resolve("bank.war"), home.resolve("standalone/deployments/bank.war"));
            return List.of("/bin/sh", home.resolve("bin/standalone.sh").toString(),
                    "-Djboss.http.port=" + port, "-Djboss.https.port=" + ConsumerProject.freePort(),
                    "-Djboss.management.http.port=" + ConsumerProject.freePort(),
                    "-Djboss.management.https.port=" + ConsumerProject.freePort());
        }

        @Override
        Path workingDirectory(Path target) {
            return target.resolve("wildfly-38.0.1.Final");
        }
    },

    /**
     * {@code bin/server run bank}: the project's {@code src/main/liberty/config/server.xml}
     * (features, the HTTP endpoint at {@code ${env.PORT}}) and the WAR in the server's apps/.
     * Ready once the application has started and the server says it is ready (CWWKF0011I): on a
     * busy machine either comes first; before the first it answers 404, before the second its
     * HTTP port is not open yet.
     */
    OPEN_LIBERTY("open-liberty", "Open Liberty 26.0.0.3", "CWWKZ0001I: Application bank started",
            List.of("HTTP/1.1 429 Undefined", "HTTP/1.1 422 Undefined")) {
        @Override
        List<String> command(Path target, int port) {
            Path server = target.resolve("wlp/usr/servers/bank");
            copy(target.resolveSibling("src/main/liberty/config/server.xml"), server.resolve("server.xml"));
            copy(target.resolve("bank.war"), server.resolve("apps/bank.war"));
            return List.of("/bin/sh", target.resolve("wlp/bin/server").toString(), "run", "bank");
        }

        @Override
        Path workingDirectory(Path target) {
            return target.resolve("wlp");
        }

        @Override
        String listeningLine() {
            return "CWWKF0011I: The bank server is ready";
        }

        /** Liberty's console has AUDIT and above; INFO lines go to the server's messages.log. */
        @Override
        Supplier<String> log(ConsumerProject project, ConsumerProject.Running service) {
            Path messages = project.dir().resolve("target/wlp/usr/servers/bank/logs/messages.log");
            return () -> {
                try {
                    return Files.isRegularFile(messages) ? Files.readString(messages, StandardCharsets.UTF_8) : "";
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            };
        }
    };

    /** Where each server serves the WAR's {@code @ApplicationPath("api")}: context root {@code bank}. */
    static final String API = "/bank/api";

    private final String project;
    private final String title;
    private final String readyLine;
    private final List<String> statusLines;

    EeServer(String project, String title, String readyLine, List<String> statusLines) {
        this.project = project;
        this.title = title;
        this.readyLine = readyLine;
        this.statusLines = statusLines;
    }

    /**
     * The status lines of a 429 and a 422 of the library's: the server's own reason phrases, since
     * Servlet 6 has no way to hand it the library's.
     */
    List<String> statusLines() {
        return statusLines;
    }

    /** The consumer project under {@code projects/} whose WAR runs on this server. */
    String project() {
        return project;
    }

    /** What the server prints once it has deployed the WAR and listens. */
    String readyLine() {
        return readyLine;
    }

    /** What the server prints once its HTTP port is open, when that may come after {@link #readyLine()}. */
    String listeningLine() {
        return readyLine;
    }

    /** Where the server writes its log at INFO: the process's output unless the server says otherwise. */
    Supplier<String> log(ConsumerProject project, ConsumerProject.Running service) {
        return service::output;
    }

    @Override
    public String toString() {
        return title;
    }

    /** The command that starts the server with the WAR on {@code port}, after putting the WAR where the server takes it. */
    abstract List<String> command(Path target, int port);

    abstract Path workingDirectory(Path target);

    /**
     * Starts the server of the built {@code project} with the quota settings in its environment
     * (environment variables are one of the ways docs/runtimes.md names), without waiting.
     */
    ConsumerProject.Running launch(ConsumerProject project, Map<String, String> settings) {
        Path target = project.dir().resolve("target");
        int port = ConsumerProject.freePort();
        Path log = project.dir().resolveSibling(project.name() + "-run.log");
        ProcessBuilder builder = new ProcessBuilder(new ArrayList<>(command(target, port)))
                .directory(workingDirectory(target).toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(settings);
        builder.environment().put("PORT", Integer.toString(port));
        // the scripts' java: the one running these tests
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        try {
            return new ConsumerProject.Running(project.name(), builder.start(), port, log);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + this, e);
        }
    }

    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static void copy(Path from, Path to) {
        try {
            Files.createDirectories(to.getParent());
            Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy " + from + " to " + to, e);
        }
    }
}

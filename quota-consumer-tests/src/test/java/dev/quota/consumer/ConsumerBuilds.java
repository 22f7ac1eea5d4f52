package dev.quota.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.RedisServer;
import dev.quota.testkit.RespClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;

/**
 * Every consumer project's build, started once for all the test classes that run them, and the one
 * Redis they run against. The builds run in lanes, each its builds one after the other, in the
 * order of {@link #LANES}, so that the projects of the first test class are ready first and the
 * others build while it runs its services. Stopped (lanes, Redis) as the test JVM exits, when the
 * build times are printed.
 *
 * <p>{@code -Dquota.consumers=jersey-3.1,resteasy-6.2} builds those projects only, for a developer
 * who runs one test on a few runtimes: the tests of the others are skipped, saying so.
 */
final class ConsumerBuilds {

    /** Helidon 4 needs Java 21 or later. */
    static final String HELIDON = "helidon-mp-cdi";
    static final String UNLISTED = "+unlisted-application";
    /** The same, its {@code Application} a CDI bean: Helidon registers only such an application as it is. */
    static final String UNLISTED_BEAN = "+unlisted-bean-application";
    /** The application registers its own QuotaFeature over quota-cdi's service. */
    static final String OWN_FEATURE = "+own-feature";

    /**
     * The lanes and their builds. Jersey 4 twice in one lane would be a third build there: the
     * RESTEasy lane is shorter. The Jakarta EE servers' projects have a lane of their own.
     */
    private static final List<List<String>> LANES = List.of(
            List.of("jersey-3.1", "jersey-4.0", "quarkus-rest", "quarkus-resteasy-cdi",
                    "quarkus-resteasy-cdi" + UNLISTED, HELIDON + UNLISTED, HELIDON + UNLISTED_BEAN),
            List.of("resteasy-6.2", "resteasy-7.0", "tomcat-10.1", ConsumerProject.UNSUPPORTED, "quarkus-rest-cdi",
                    "quarkus-rest-cdi" + UNLISTED, HELIDON, HELIDON + OWN_FEATURE),
            // WARs, and the servers their builds unpack: mostly disk, little CPU
            List.of("payara-micro-6", "wildfly-38", "open-liberty"));

    /** The system property naming the only projects to build, comma-separated; all of them without it. */
    static final String SELECTED = "quota.consumers";

    private static ConsumerBuilds running;

    private final Map<String, CompletableFuture<ConsumerProject>> builds = new LinkedHashMap<>();
    private final List<ExecutorService> lanes = new ArrayList<>();
    private final Optional<Path> jdk21 = Jdks.atLeast(21);
    private final long started = System.nanoTime();
    private final RedisServer redis;

    /** The builds, started on the first call, after checking that the local repository holds this build's artifacts. */
    static synchronized ConsumerBuilds get() {
        if (running == null) {
            running = new ConsumerBuilds();
            Runtime.getRuntime().addShutdownHook(new Thread(running::stop, "consumer-builds-stop"));
        }
        return running;
    }

    private ConsumerBuilds() {
        Path repository = LocalRepository.path();
        List<String> stale = LocalRepository.staleArtifacts(Checkout.root(), Checkout.version(), repository);
        assertThat(stale).as("the consumer projects would build against other artifacts than this build's; run mvn"
                + " install (the README's test command), which installs each module before this one runs").isEmpty();
        for (List<String> names : LANES) {
            ExecutorService lane = Executors.newSingleThreadExecutor(r -> new Thread(r, "consumer-builds-" + names.get(0)));
            lanes.add(lane);
            for (String name : names) {
                if (!selected(name)) {
                    continue;
                }
                boolean helidon = name.startsWith(HELIDON);
                if (helidon && jdk21.isEmpty()) {
                    continue;
                }
                Path javaHome = helidon ? jdk21.get() : Path.of(System.getProperty("java.home"));
                builds.put(name, CompletableFuture.supplyAsync(() -> {
                    ConsumerProject project = new ConsumerProject(name, javaHome);
                    project.build(repository);
                    return project;
                }, lane));
            }
        }
        redis = RedisServer.start();
    }

    /** The JDK 21 or later that builds and runs Helidon, if one is installed. */
    Optional<Path> jdk21() {
        return jdk21;
    }

    String redisUri() {
        return redis.uri();
    }

    /** Whether {@code name} is built: named by {@value #SELECTED}, or every project when it is not set. */
    static boolean selected(String name) {
        String selected = System.getProperty(SELECTED, "");
        return selected.isBlank() || List.of(selected.split(",")).stream().map(String::trim).anyMatch(name::equals);
    }

    /**
     * The built project {@code name}, waiting for its build; fails the test when the build failed,
     * and skips it when {@value #SELECTED} leaves the project out.
     */
    ConsumerProject built(String name) throws InterruptedException {
        Assumptions.assumeTrue(selected(name), () -> name + " is not built: -D" + SELECTED + "="
                + System.getProperty(SELECTED) + " leaves it out");
        CompletableFuture<ConsumerProject> build = builds.get(name);
        if (build == null) {
            throw new AssertionError(name + " is not built (a JDK it needs is missing, or it is in no lane)");
        }
        try {
            return build.get(ConsumerProject.BUILD_TIMEOUT.toMinutes() * 2, TimeUnit.MINUTES);
        } catch (ExecutionException e) {
            throw new AssertionError("the build of " + name + " failed: " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("the build of " + name + " did not finish", e);
        }
    }

    /** Starts {@code project} on a flushed Redis and waits until it answers. */
    ConsumerProject.Running start(ConsumerProject project) {
        flushRedis();
        return project.start(redis.uri());
    }

    /** Empties Redis, for a service that is to start from full buckets. */
    void flushRedis() {
        try (RespClient client = RespClient.connect(redis.host(), redis.port())) {
            client.flushAll();
        }
    }

    private void stop() {
        for (ExecutorService lane : lanes) {
            lane.shutdownNow();
        }
        try {
            for (ExecutorService lane : lanes) {
                lane.awaitTermination(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        redis.close();
        String times = builds.entrySet().stream()
                .filter(e -> e.getValue().isDone() && !e.getValue().isCompletedExceptionally())
                .map(e -> e.getKey() + " built in " + e.getValue().join().buildTime().toMillis() / 1000.0 + " s")
                .collect(Collectors.joining(", "));
        System.out.println("consumer projects: " + times + "; all done in "
                + Duration.ofNanos(System.nanoTime() - started).toMillis() / 1000.0 + " s");
    }
}

package dev.quota.example.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.Await;
import dev.quota.testkit.BusyCores;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The example WAR on two clustered Payara Micro servers, configured only by system properties:
 * what every store must do there. A subclass names the store's settings.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 6, unit = TimeUnit.MINUTES)
abstract class ClusterContract {

    static final String LOAD_KEY = "it-load-key-0123456789";
    static final String AMOUNT_KEY = "it-amount-key-0123456789";
    static final String VIEW_KEY = "it-view-key-0123456789";
    static final String RELOAD_KEY = "it-reload-key-0123456789";
    static final String WARM_KEY = "it-warm-key-0123456789";
    static final int CAPACITY = 50;
    static final int REQUESTS = 300;

    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(30)).build();
    PayaraCluster cluster;
    Path plans;
    String adminToken;

    /** The cluster's name in logs and directories, such as {@code redis}. */
    abstract String name();

    /** The store's settings, beside the plans file and the admin token file every run has. */
    abstract Map<String, String> storeSettings() throws IOException;

    /** Stops what the store needed, after the cluster. */
    void stopStore() {
    }

    @BeforeAll
    void startCluster() throws IOException {
        Path dir = Files.createDirectories(Path.of(System.getProperty("cluster.runs")).resolve("files-" + name()));
        plans = dir.resolve("plans.yaml");
        Files.writeString(plans, plansYaml(5));
        adminToken = "it-admin-" + java.util.UUID.randomUUID() + "-Token";
        Path tokenFile = dir.resolve("admin.token");
        Files.deleteIfExists(tokenFile);
        Files.createFile(tokenFile, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(tokenFile, adminToken + "\n");
        Map<String, String> settings = new HashMap<>(storeSettings());
        settings.put("quota.plans", plans.toString());
        settings.put("quota.plans.reload-interval", "250ms");
        settings.put("quota.admin.token-file", tokenFile.toString());
        cluster = PayaraCluster.start(name(), settings);
        // a cold member's first decisions open the store's connections and load its scripts: not
        // what the burst below is about
        long t0 = System.nanoTime();
        for (PayaraMember member : cluster.members()) {
            for (int i = 0; i < 10; i++) {
                HttpResponse<String> response = get(member, "/v1/accounts/ACC-1", WARM_KEY);
                assertThat(response.statusCode()).as(member.name + ": " + response.body()).isEqualTo(200);
            }
        }
        cluster.timings.put("warmUp.20", Duration.ofNanos(System.nanoTime() - t0).toMillis() + " ms");
    }

    @AfterAll
    void stopCluster() {
        try {
            if (cluster != null) {
                cluster.close();
            }
        } finally {
            stopStore();
        }
    }

    @Test
    @Order(1)
    @ExtendWith(BusyCores.class) // every core busy: exact with the shipped settings on a saturated machine
    void concurrentRequestsOverBothMembers_admitExactlyTheCapacity() throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(REQUESTS);
        Map<Integer, AtomicInteger> byStatus = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> admittedBy = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> rejectedBy = new ConcurrentHashMap<>();
        List<HttpResponse<String>> rejections = java.util.Collections.synchronizedList(new ArrayList<>());
        List<HttpResponse<String>> admissions = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Future<?>> calls = new ArrayList<>();
        for (int i = 0; i < REQUESTS; i++) {
            PayaraMember member = i % 2 == 0 ? cluster.a : cluster.b;
            calls.add(pool.submit(() -> {
                go.await();
                HttpResponse<String> response = get(member, "/v1/accounts/ACC-1", LOAD_KEY);
                byStatus.computeIfAbsent(response.statusCode(), s -> new AtomicInteger()).incrementAndGet();
                if (response.statusCode() == 200) {
                    admittedBy.computeIfAbsent(member.name, s -> new AtomicInteger()).incrementAndGet();
                    admissions.add(response);
                } else {
                    rejectedBy.computeIfAbsent(member.name, s -> new AtomicInteger()).incrementAndGet();
                    rejections.add(response);
                }
                return null;
            }));
        }
        long t0 = System.nanoTime();
        go.countDown();
        for (Future<?> call : calls) {
            call.get(3, TimeUnit.MINUTES);
        }
        cluster.timings.put("burst." + REQUESTS, Duration.ofNanos(System.nanoTime() - t0).toMillis() + " ms");
        pool.shutdownNow();

        String counts = byStatus + " admitted by " + admittedBy + " rejected by " + rejectedBy;
        assertThat(byStatus.keySet()).as(counts).containsOnly(200, 429);
        assertThat(byStatus.get(200).get()).as(counts).isEqualTo(CAPACITY);
        // both members decided, each for its own half: the bucket's home is the other member for one of them.
        // Which member's requests took the 50 tokens is the scheduler's choice: one may take them all.
        for (String member : List.of("a", "b")) {
            int decided = admittedBy.getOrDefault(member, new AtomicInteger()).get()
                    + rejectedBy.getOrDefault(member, new AtomicInteger()).get();
            assertThat(decided).as("%s decided by %s", counts, member).isEqualTo(REQUESTS / 2);
        }
        assertThat(rejectedBy).as(counts).containsKeys("a", "b");
        for (HttpResponse<String> admitted : admissions) {
            assertThat(admitted.headers().firstValue("RateLimit-Policy")).hasValue("\"load-burst\";q=50;w=3600");
            assertThat(admitted.headers().firstValue("RateLimit")).hasValueSatisfying(
                    value -> assertThat(value).startsWith("\"load-burst\";r="));
        }
        for (HttpResponse<String> rejected : rejections) {
            assertThat(rejected.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(rejected.headers().firstValue("Retry-After")).isPresent();
            assertThat(rejected.headers().firstValue("RateLimit")).hasValueSatisfying(
                    value -> assertThat(value).startsWith("\"load-burst\";r=0;"));
            assertThat(rejected.body()).contains("\"type\":\"urn:quota:problem:quota-exceeded\"", "\"status\":429");
        }
    }

    @Test
    @Order(2)
    void anonymousCallers_areCountedByTheServletPeer_inTheSharedStore() {
        HttpResponse<String> first = get(cluster.a, "/v1/accounts/ACC-1", null);
        HttpResponse<String> second = get(cluster.b, "/v1/accounts/ACC-1", null);

        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"anonymous-burst\";q=7;w=3600");
        assertThat(first.headers().firstValue("RateLimit")).hasValueSatisfying(v -> assertThat(v).contains("r=6;"));
        assertThat(second.headers().firstValue("RateLimit")).hasValueSatisfying(v -> assertThat(v).contains("r=5;"));
    }

    @Test
    @Order(3)
    void unknownKey_is401Problem() {
        HttpResponse<String> response = get(cluster.b, "/v1/accounts/ACC-1", "no-such-key-0123456789");

        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    }

    @Test
    @Order(4)
    void transfers_withinTheDailyAmountAre201_andAboveTheWholeLimit422() {
        HttpResponse<String> accepted = post(cluster.a, "/v1/transfers", AMOUNT_KEY,
                "{\"from\":\"ACC-1\",\"to\":\"ACC-2\",\"amountMinor\":60000,\"currency\":\"EUR\"}");
        HttpResponse<String> overTheRest = post(cluster.b, "/v1/transfers", AMOUNT_KEY,
                "{\"from\":\"ACC-1\",\"to\":\"ACC-2\",\"amountMinor\":50000,\"currency\":\"EUR\"}");
        HttpResponse<String> never = post(cluster.b, "/v1/transfers", AMOUNT_KEY,
                "{\"from\":\"ACC-1\",\"to\":\"ACC-2\",\"amountMinor\":100001,\"currency\":\"EUR\"}");

        assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(201);
        // 1,000.00 a day: 600.00 moved on a, so 500.00 more on b must wait
        assertThat(overTheRest.statusCode()).as(overTheRest.body()).isEqualTo(429);
        assertThat(overTheRest.body()).contains("transfer-amount-daily");
        assertThat(never.statusCode()).as(never.body()).isEqualTo(422);
        assertThat(never.body()).contains("urn:quota:problem:exceeds-limit");
    }

    @Test
    @Order(5)
    void resources_injectTheServiceAndTheRequestsView() {
        get(cluster.a, "/v1/accounts/ACC-1", VIEW_KEY);
        HttpResponse<String> standing = get(cluster.b, "/v1/me/quota", VIEW_KEY);

        assertThat(standing.statusCode()).as(standing.body()).isEqualTo(200);
        // two requests so far, one on each member: the view names the caller, the service reads the store
        assertThat(standing.body()).contains("\"customer\":\"VIEW\"", "\"policy\":\"load-burst\"",
                "\"remaining\":48");
    }

    @Test
    @Order(6)
    void adminApi_answersTheTokenFromTheTokenFile_only() {
        HttpResponse<String> ok = send(cluster.a, HttpRequest.newBuilder(URI.create(PayaraCluster.api(cluster.a)
                + "/admin/customers/LOAD")).header("Authorization", "Bearer " + adminToken).GET());
        HttpResponse<String> wrong = send(cluster.b, HttpRequest.newBuilder(URI.create(PayaraCluster.api(cluster.b)
                + "/admin/customers/LOAD")).header("Authorization", "Bearer " + adminToken + "x").GET());

        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
        assertThat(ok.body()).contains("\"customer\":\"LOAD\"", "\"remaining\":0");
        assertThat(wrong.statusCode()).isEqualTo(401);
    }

    @Test
    @Order(7)
    void anEditedPlansFile_appliesOnBothMembers() throws IOException {
        Files.writeString(plans, plansYaml(9));

        for (PayaraMember member : cluster.members()) {
            Await.until(Duration.ofSeconds(60), () -> get(member, "/v1/accounts/ACC-1", RELOAD_KEY).headers()
                    .firstValue("RateLimit-Policy").orElse("").equals("\"reload-burst\";q=9;w=3600"),
                    () -> member.name + " did not take the edited plans file");
        }
    }

    @Test
    @Order(8)
    void serverLogs_haveNoClassLoadingErrorsNorFailedChecks() throws IOException {
        for (PayaraMember member : cluster.members()) {
            String log = member.logText();
            assertThat(log).as(member.log.toString())
                    .doesNotContain("ClassNotFoundException", "NoClassDefFoundError", "HazelcastSerializationException",
                            "quota check failed", "NoSuchMethodError");
        }
    }

    HttpResponse<String> get(PayaraMember member, String path, String key) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(PayaraCluster.api(member) + path)).GET();
        if (key != null) {
            request.header("X-API-Key", key);
        }
        return send(member, request);
    }

    HttpResponse<String> post(PayaraMember member, String path, String key, String json) {
        return send(member, HttpRequest.newBuilder(URI.create(PayaraCluster.api(member) + path))
                .header("X-API-Key", key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    HttpResponse<String> send(PayaraMember member, HttpRequest.Builder request) {
        try {
            return http.send(request.timeout(Duration.ofSeconds(60)).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException(member.name + ": " + e + "; alive=" + member.alive() + "; "
                    + member.describeTail(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The run's plans: {@code reload}'s capacity is what the reload test edits. */
    static String plansYaml(int reloadCapacity) {
        return """
                identity:
                  header: X-API-Key
                  missingKey: anonymous
                  anonymousPlan: anonymous
                plans:
                  anonymous:
                    limits:
                      - {name: burst, capacity: 7, refill: interval, period: 1h}
                  load:
                    onStoreFailure: closed
                    limits:
                      - {name: burst, capacity: 50, refill: interval, period: 1h}
                  reload:
                    limits:
                      - {name: burst, capacity: %d, refill: interval, period: 1h}
                rules:
                  transfers:
                    match: ["POST /api/v1/transfers"]
                    limits:
                      - {name: per-minute, capacity: 10, period: 1m}
                  export:
                    cost: 5
                amounts:
                  transfer-amount:
                    limits:
                      - {name: daily, capacity: 100000, refill: calendar, window: day}
                customers:
                  LOAD: {plan: load}
                  AMOUNT: {plan: load}
                  VIEW: {plan: load}
                  RELOAD: {plan: reload}
                  WARM: {plan: load}
                apiKeys:
                  - {sha256: %s, customer: LOAD}
                  - {sha256: %s, customer: AMOUNT}
                  - {sha256: %s, customer: VIEW}
                  - {sha256: %s, customer: RELOAD}
                  - {sha256: %s, customer: WARM}
                """.formatted(reloadCapacity, sha256(LOAD_KEY), sha256(AMOUNT_KEY), sha256(VIEW_KEY),
                sha256(RELOAD_KEY), sha256(WARM_KEY));
    }

    static String sha256(String key) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(key.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

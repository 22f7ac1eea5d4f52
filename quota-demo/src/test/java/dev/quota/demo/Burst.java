package dev.quota.demo;

import java.net.URI;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Fires many requests of customer LOAD-TEST ({@code plans/shared-30.yaml}) at once, spread round
 * robin over the instances, and counts the answers by status.
 */
final class Burst {

    static final String LOAD_KEY = "load-test-key";
    static final String WARMUP_KEY = "warmup-key";

    private Burst() {
    }

    /**
     * Warms every instance up (first requests of a JVM are slow), then releases {@code requests}
     * threads from one latch.
     *
     * @return how many answers had each status
     */
    static Map<Integer, Long> fire(List<URI> instances, int requests) throws Exception {
        for (URI instance : instances) {
            for (int i = 0; i < 20; i++) {
                int status = Http.get(account(instance), "X-API-Key", WARMUP_KEY).statusCode();
                if (status != 200) {
                    throw new IllegalStateException("warm-up request to " + instance + " answered " + status);
                }
            }
        }
        ExecutorService pool = Executors.newFixedThreadPool(requests);
        try {
            CountDownLatch ready = new CountDownLatch(requests);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Integer>> answers = new ArrayList<>(requests);
            for (int i = 0; i < requests; i++) {
                URI target = account(instances.get(i % instances.size()));
                answers.add(pool.submit(() -> {
                    ready.countDown();
                    if (!go.await(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("never released");
                    }
                    HttpResponse<String> response = Http.get(target, "X-API-Key", LOAD_KEY);
                    return response.statusCode();
                }));
            }
            if (!ready.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("threads did not start");
            }
            go.countDown();
            List<Integer> statuses = new ArrayList<>(requests);
            for (Future<Integer> answer : answers) {
                statuses.add(answer.get(60, TimeUnit.SECONDS));
            }
            return statuses.stream().collect(Collectors.groupingBy(Function.identity(), TreeMap::new,
                    Collectors.counting()));
        } finally {
            pool.shutdownNow();
        }
    }

    private static URI account(URI instance) {
        return instance.resolve("api/v1/rates"); // open to every caller, counted like any request
    }
}

package dev.quota.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Reads a round needs before it computes: every key of a job when written states are not reused,
 * or the keys this instance knows nothing of for a job computed again. Sent as a flight of its own
 * so the combiner never waits for a GET; the jobs are held until it is settled, then computed.
 */
final class ReadFlight extends Flight {

    /** The round's time when the reads were sent: what they answer was true then or later. */
    private final long sentNanos;
    private final List<CompletableFuture<byte[]>> reads = new ArrayList<>();

    ReadFlight(List<String> keys, List<CasJob> jobs, long sentNanos) {
        super(keys, jobs);
        this.sentNanos = sentNanos;
    }

    @Override
    CompletableFuture<?> send(RedisLink link) {
        for (String key : keys) {
            reads.add(link.get(key));
        }
        return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new));
    }

    @Override
    void settle(Pipeline pipeline) {
        List<byte[]> values = new ArrayList<>(keys.size());
        try {
            Flight.outcome(reply(), keys.get(0), pipeline.timeoutNanos());
            for (int i = 0; i < keys.size(); i++) {
                values.add(Flight.outcome(reads.get(i), keys.get(i), pipeline.timeoutNanos()));
            }
        } catch (RuntimeException e) {
            CasJob.failAll(jobs, e);
            return;
        }
        for (int i = 0; i < keys.size(); i++) {
            pipeline.remember(keys.get(i), values.get(i), sentNanos, jobs);
        }
        for (CasJob job : jobs) {
            job.read = true;
        }
        pipeline.holdFirst(jobs);
    }
}

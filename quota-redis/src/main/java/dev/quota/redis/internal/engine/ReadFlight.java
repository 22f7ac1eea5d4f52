package dev.quota.redis.internal.engine;

import dev.quota.redis.internal.encoding.KeySlots;
import dev.quota.redis.internal.keystate.KeyStates;
import dev.quota.redis.internal.transport.RedisLink;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Reads a round needs before it computes: every key of a job when written states are not reused,
 * the keys this instance forgot while Redis may still hold them ({@link KeyStates#mustRead}), or
 * the keys it knows nothing of for a job computed again. Sent as a flight of its own so the
 * combiner never waits for a read; the jobs are held until it is settled, then computed. One
 * {@code MGET} for all the keys (one per Redis Cluster slot in a cluster): one command however many
 * keys a decision forgot. A key holding another type reads as none; the script that then writes it
 * finds the type and has it repaired ({@link RepairFlight}).
 */
final class ReadFlight extends ListFlight {

    /** The round's time when the reads were sent: what they answer was true then or later. */
    private final long sentNanos;
    private final boolean cluster;
    /** One read per slot: the {@code MGET}s' replies, and where each one's keys are in {@link #keys}. */
    private final List<CompletableFuture<List<Object>>> reads = new ArrayList<>(1);
    private final List<int[]> places = new ArrayList<>(1);

    ReadFlight(List<String> keys, List<CasJob> jobs, long sentNanos, boolean cluster) {
        super(keys, jobs);
        this.sentNanos = sentNanos;
        this.cluster = cluster;
    }

    @Override
    CompletableFuture<?> send(RedisLink link) {
        if (!cluster) {
            CompletableFuture<List<Object>> read = link.getAll(keys);
            reads.add(read);
            return read;
        }
        Map<Integer, List<Integer>> bySlot = new LinkedHashMap<>();
        for (int i = 0; i < keys.size(); i++) {
            bySlot.computeIfAbsent(KeySlots.slot(keys.get(i)), slot -> new ArrayList<>()).add(i);
        }
        for (List<Integer> slot : bySlot.values()) {
            int[] at = new int[slot.size()];
            List<String> slotKeys = new ArrayList<>(at.length);
            for (int i = 0; i < at.length; i++) {
                at[i] = slot.get(i);
                slotKeys.add(keys.get(at[i]));
            }
            places.add(at);
            reads.add(link.getAll(slotKeys));
        }
        return reads.size() == 1 ? reads.get(0) : CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new));
    }

    @Override
    void settle(Pipeline pipeline) {
        byte[][] values = new byte[keys.size()][];
        try {
            Flight.outcome(reply(), keys.get(0), pipeline.timeoutNanos());
            for (int r = 0; r < reads.size(); r++) {
                List<Object> read = Flight.outcome(reads.get(r), keys.get(0), pipeline.timeoutNanos());
                for (int i = 0; i < read.size(); i++) {
                    values[cluster ? places.get(r)[i] : i] = (byte[]) read.get(i);
                }
            }
        } catch (RuntimeException e) {
            CasJob.failAll(jobs, e);
            return;
        }
        for (int i = 0; i < keys.size(); i++) {
            pipeline.remember(keys.get(i), values[i], sentNanos, this);
        }
        for (CasJob job : jobs) {
            job.read = true;
        }
        pipeline.holdFirst(this);
    }
}

package dev.quota.redis.internal.engine;

import dev.quota.core.QuotaStoreException;
import dev.quota.redis.internal.transport.RedisLink;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Deletes bucket keys that hold something other than a bucket state ({@link BucketRepair}), as a
 * flight of its own: the combiner never waits for it, and jobs on those keys wait for it like for
 * any key in flight.
 *
 * <p>Two causes: bytes that do not parse (deleted only if unchanged; nothing waits on the outcome
 * but the keys), and a script failed with Redis' WRONGTYPE (keys of another type deleted; the
 * script's jobs are computed again if one was, else they fail with the script's failure).
 */
final class RepairFlight extends ListFlight {

    private final byte @Nullable [] unreadable;
    private final @Nullable QuotaStoreException scriptFailure;
    private final List<CompletableFuture<Long>> deletions = new ArrayList<>();

    private RepairFlight(List<String> keys, List<CasJob> jobs, byte @Nullable [] unreadable,
                         @Nullable QuotaStoreException scriptFailure) {
        super(keys, jobs);
        this.unreadable = unreadable;
        this.scriptFailure = scriptFailure;
    }

    /** Deletes {@code key} if it still holds {@code bytes}, which are not a bucket state. */
    static RepairFlight unreadable(String key, byte[] bytes, List<CasJob> waiting) {
        return new RepairFlight(List.of(key), waiting, bytes, null);
    }

    /** After {@code failure} (WRONGTYPE) of the script that carried {@code jobs}: deletes keys of another type. */
    static RepairFlight wrongType(List<String> keys, List<CasJob> jobs, QuotaStoreException failure) {
        return new RepairFlight(keys, jobs, null, failure);
    }

    @Override
    CompletableFuture<?> send(RedisLink link) {
        for (String key : keys) {
            deletions.add(link.deleteUnreadable(key, unreadable));
        }
        return CompletableFuture.allOf(deletions.toArray(CompletableFuture[]::new));
    }

    @Override
    void settle(Pipeline pipeline) {
        boolean removed = false;
        for (int i = 0; i < keys.size(); i++) {
            String key = keys.get(i);
            Long done;
            try {
                done = Flight.outcome(deletions.get(i), key, pipeline.timeoutNanos());
            } catch (RuntimeException e) {
                BucketRepair.couldNotDelete(key, e);
                continue;
            }
            removed |= BucketRepair.deleted(key, done, unreadable, scriptFailure);
        }
        QuotaStoreException failed = scriptFailure;
        if (failed == null) {
            return; // the jobs were held behind the keys, not carried: they go on their own
        }
        if (removed) {
            pipeline.computeAgain(this);
        } else {
            CasJob.failAll(jobs, failed);
        }
    }
}

package dev.quota.redis.internal.engine;

import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.remote.CommandResult;
import io.github.bucket4j.distributed.remote.MutableBucketEntry;
import io.github.bucket4j.distributed.remote.RemoteCommand;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One Bucket4j command on one key, run through the engine's compare-and-swap rounds as a Bucket4j
 * proxy manager would run it: the state written, if the command changed it, with the TTL of
 * {@code ttl}. Only Bucket4j's compliance suite sends these ({@link CasEngineProxyManager}).
 */
final class CommandJob<T> extends CasJob {

    private final String key;
    private final RemoteCommand<T> command;
    private final ExpirationAfterWriteStrategy ttl;
    private final @Nullable Long clientTimeNanos;

    CommandJob(String key, RemoteCommand<T> command, ExpirationAfterWriteStrategy ttl,
               @Nullable Long clientTimeNanos) {
        this.key = key;
        this.command = command;
        this.ttl = ttl;
        this.clientTimeNanos = clientTimeNanos;
    }

    @Override
    List<String> keys() {
        return List.of(key);
    }

    @Override
    void compute(CasRound round) {
        Cell cell = round.cell(key);
        MutableBucketEntry entry = cell.state == null ? new MutableBucketEntry((byte[]) null)
                : new MutableBucketEntry(cell.state.copy());
        CommandResult<T> result = command.execute(entry, clientTimeNanos != null ? clientTimeNanos : round.now());
        if (entry.isStateModified()) {
            cell.write(entry.get(), ttl);
        }
        answer(result);
    }

    /** Its outcome ({@link CasJob#outcome}), as {@link #compute} answers it. */
    @SuppressWarnings("unchecked") // compute answers a CommandResult<T>, nothing else
    CommandResult<T> result(Object outcome) {
        return (CommandResult<T>) outcome;
    }
}

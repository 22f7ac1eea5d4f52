package dev.quota.redis;

import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * The promise of a command written to a held connection ({@link HeldConnections}): completed by
 * Redisson's decoder with Redis's answer, or by a failed write, and handing it to its call. It is
 * always completed, whatever the call then does with the answer (send the script again elsewhere,
 * say): the decoder moves to the connection's next command only once a command's promise is done.
 * A subclass rather than a callback on a plain future: one object a command, not two.
 */
final class HeldCommand<T> extends CompletableFuture<T> {

    private final BiConsumer<? super @Nullable T, ? super @Nullable Throwable> call;

    HeldCommand(BiConsumer<? super @Nullable T, ? super @Nullable Throwable> call) {
        this.call = call;
    }

    @Override
    public boolean complete(@Nullable T answer) {
        if (!super.complete(answer)) {
            return false;
        }
        call.accept(answer, null);
        return true;
    }

    @Override
    public boolean completeExceptionally(Throwable failure) {
        if (!super.completeExceptionally(failure)) {
            return false;
        }
        call.accept(null, failure);
        return true;
    }
}

package dev.quota.redis.internal.engine;

import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.AbstractProxyManager;
import io.github.bucket4j.distributed.proxy.AbstractProxyManagerBuilder;
import io.github.bucket4j.distributed.proxy.ClientSideConfig;
import io.github.bucket4j.distributed.remote.CommandResult;
import io.github.bucket4j.distributed.remote.Request;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Bucket4j proxy manager over the Redis store's {@link CasEngine}, so that Bucket4j's own compliance
 * suite can run every remote command through the engine's compare-and-swap batches. Test-only: the
 * product calls the engine with whole decisions, never through Bucket4j's proxies.
 *
 * <p>Over several engines (several instances of the store on one Redis), each command goes to the
 * next engine in turn, so that every bucket is written by all of them.
 *
 * <p>Synchronous only, as Bucket4j's own JDBC managers are: the engine answers on the caller's thread.
 */
public final class CasEngineProxyManager extends AbstractProxyManager<String> {

    private final List<CasEngine> engines;
    private final AtomicInteger turn = new AtomicInteger();

    private CasEngineProxyManager(List<CasEngine> engines, ClientSideConfig config) {
        super(config);
        this.engines = engines;
    }

    /** A builder over {@code engines}; Bucket4j's options (expiration, client clock) are set on it. */
    public static Builder builder(CasEngine... engines) {
        return new Builder(List.of(engines));
    }

    @Override
    protected <T> CommandResult<T> execute(String key, Request<T> request) {
        // a null expiration strategy (none on the manager) is read as "never expires"
        ExpirationAfterWriteStrategy ttl = request.getExpirationStrategy();
        CommandJob<T> job = new CommandJob<>(key, request.getCommand(),
                ttl != null ? ttl : ExpirationAfterWriteStrategy.none(), request.getClientSideTime());
        return job.result(next().run(job));
    }

    @Override
    public void removeProxy(String key) {
        next().delete(key);
    }

    private CasEngine next() {
        return engines.get(Math.floorMod(turn.getAndIncrement(), engines.size()));
    }

    @Override
    public boolean isAsyncModeSupported() {
        return false;
    }

    @Override
    public boolean isExpireAfterWriteSupported() {
        return true;
    }

    @Override
    protected <T> CompletableFuture<CommandResult<T>> executeAsync(String key, Request<T> request) {
        throw new UnsupportedOperationException("the engine answers synchronously");
    }

    @Override
    protected CompletableFuture<Void> removeAsync(String key) {
        throw new UnsupportedOperationException("the engine answers synchronously");
    }

    /** Bucket4j's builder for this manager, as the compliance suite's {@code ProxyManagerSpec} needs one. */
    public static final class Builder extends AbstractProxyManagerBuilder<String, CasEngineProxyManager, Builder> {

        private final List<CasEngine> engines;

        private Builder(List<CasEngine> engines) {
            this.engines = engines;
        }

        @Override
        public CasEngineProxyManager build() {
            return new CasEngineProxyManager(engines, getClientSideConfig());
        }

        @Override
        public boolean isExpireAfterWriteSupported() {
            return true;
        }
    }
}

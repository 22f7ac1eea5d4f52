package dev.quota.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Baseline (a): a minimal token bucket as one Lua script, one EVALSHA per decision through the
 * instance's Redisson client. The physical floor: one round trip, no client-side state.
 */
final class LuaContender implements Contender {

    static final String SCRIPT = script("token_bucket.lua");

    private final RScript script;
    private final String sha;
    private final String namespace;
    private final String capacity;
    private final String refill;
    private final String periodMicros;
    private final String ttlMillis;

    LuaContender(RedissonClient client, LimitSpec limit, String namespace) {
        this.script = client.getScript(StringCodec.INSTANCE);
        this.sha = script.scriptLoad(SCRIPT);
        this.namespace = namespace + ":lua:";
        this.capacity = Long.toString(limit.capacity());
        this.refill = Long.toString(limit.capacity());
        this.periodMicros = Long.toString(limit.period().toNanos() / 1_000);
        this.ttlMillis = Long.toString(limit.period().toMillis() + 60_000);
    }

    @Override
    public Outcome acquire(int customer) {
        String key = namespace + customer;
        Instant now = Instant.now();
        String nowMicros = Long.toString(now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000);
        try {
            Long answer = script.evalSha(key, RScript.Mode.READ_WRITE, sha, RScript.ReturnType.LONG,
                    List.of(key), capacity, refill, periodMicros, nowMicros, ttlMillis);
            return answer != null && answer > 0 ? Outcome.ADMITTED : Outcome.REJECTED;
        } catch (RuntimeException e) {
            return Outcome.ERROR;
        }
    }

    @Override
    public String keyMarker(int customer) {
        return namespace + customer;
    }

    @Override
    public void close() {
        // the client belongs to the instance
    }

    /** The text of a Lua script next to this class in the jar. */
    static String script(String name) {
        try (InputStream in = LuaContender.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

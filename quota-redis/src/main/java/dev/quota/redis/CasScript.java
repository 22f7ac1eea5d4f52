package dev.quota.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The compare-and-swap of several bucket keys in one script: every key must hold exactly what the
 * client expects (or be absent, when it expects none); then the new states are written, each with
 * its TTL; otherwise nothing is written and the script answers what the differing keys hold, so the
 * client can compute again without another read.
 *
 * <p>Arguments come in threes per key: expected bytes ({@code ""}: expect no key), new bytes
 * ({@code ""}: leave as it is), TTL in milliseconds ({@code 0}: no expiry). A Bucket4j state is never
 * empty, so {@code ""} is unambiguous. Answer: an empty list when written, else for each differing
 * key its 1-based index and what it holds ({@code ""}: no key).
 */
final class CasScript {

    static final String TEXT = String.join("\n",
            "local bad = {}",
            "for i = 1, #KEYS do",
            "  local cur = redis.call('GET', KEYS[i])",
            "  local exp = ARGV[3 * i - 2]",
            "  if (exp == '' and cur) or (exp ~= '' and cur ~= exp) then",
            "    bad[#bad + 1] = tostring(i)",
            "    bad[#bad + 1] = cur or ''",
            "  end",
            "end",
            "if #bad > 0 then return bad end",
            "for i = 1, #KEYS do",
            "  local new = ARGV[3 * i - 1]",
            "  if new ~= '' then",
            "    local ttl = tonumber(ARGV[3 * i])",
            "    if ttl > 0 then redis.call('SET', KEYS[i], new, 'PX', ttl)",
            "    else redis.call('SET', KEYS[i], new) end",
            "  end",
            "end",
            "return {}");

    private static final byte[] EMPTY = new byte[0];

    private CasScript() {
    }

    /** The arguments for {@code expected}, {@code written} and {@code ttls}, one each per key. */
    static Object[] arguments(List<byte @Nullable []> expected, List<byte @Nullable []> written, long[] ttls) {
        Object[] args = new Object[expected.size() * 3];
        for (int i = 0; i < expected.size(); i++) {
            byte[] exp = expected.get(i);
            byte[] put = written.get(i);
            args[3 * i] = exp == null ? EMPTY : exp;
            args[3 * i + 1] = put == null ? EMPTY : put;
            args[3 * i + 2] = Long.toString(Math.max(0, ttls[i])).getBytes(StandardCharsets.US_ASCII);
        }
        return args;
    }

    /** A key that held something other than expected: its index in the script's keys and its bytes (null: none). */
    record Difference(int index, byte @Nullable [] holds) {
    }

    /** The differences the script answered; empty when it wrote. */
    static List<Difference> differences(@Nullable List<Object> reply) {
        if (reply == null || reply.isEmpty()) {
            return List.of();
        }
        List<Difference> out = new ArrayList<>(reply.size() / 2);
        for (int i = 0; i + 1 < reply.size(); i += 2) {
            int index = Integer.parseInt(new String((byte[]) reply.get(i), StandardCharsets.US_ASCII)) - 1;
            byte[] holds = (byte[]) reply.get(i + 1);
            out.add(new Difference(index, holds == null || holds.length == 0 ? null : holds));
        }
        return out;
    }
}

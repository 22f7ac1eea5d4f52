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
 * <p>Two arguments, however many keys: {@code ARGV[1]} holds three decimal numbers per key,
 * separated by spaces (the length of the expected bytes, {@code 0}: expect no key; the length of
 * the new bytes, {@code 0}: leave the key as it is; the TTL in milliseconds, {@code 0}: no expiry),
 * and {@code ARGV[2]} every key's expected bytes then new bytes, one after another. A Bucket4j state
 * is never empty, so a length of 0 is unambiguous. Packed so, a batch of 64 five-bucket decisions
 * is 322 arguments instead of 1,280: the Redis client encodes, copies and releases a buffer per
 * argument, which cost more than the script. Answer: an empty list when written, else for each
 * differing key its 1-based index and what it holds ({@code ""}: no key).
 */
final class CasScript {

    static final String TEXT = String.join("\n",
            "local h = {}",
            "for n in string.gmatch(ARGV[1], '%d+') do h[#h + 1] = n end",
            "local blob = ARGV[2]",
            "local pos = 1",
            "local bad = {}",
            "local new = {}",
            "for i = 1, #KEYS do",
            "  local el = tonumber(h[3 * i - 2])",
            "  local nl = tonumber(h[3 * i - 1])",
            "  local exp = string.sub(blob, pos, pos + el - 1)",
            "  new[i] = string.sub(blob, pos + el, pos + el + nl - 1)",
            "  pos = pos + el + nl",
            "  local cur = redis.call('GET', KEYS[i])",
            "  if (el == 0 and cur) or (el > 0 and cur ~= exp) then",
            "    bad[#bad + 1] = tostring(i)",
            "    bad[#bad + 1] = cur or ''",
            "  end",
            "end",
            "if #bad > 0 then return bad end",
            "for i = 1, #KEYS do",
            "  if new[i] ~= '' then",
            "    local ttl = h[3 * i]",
            "    if ttl ~= '0' then redis.call('SET', KEYS[i], new[i], 'PX', ttl)",
            "    else redis.call('SET', KEYS[i], new[i]) end",
            "  end",
            "end",
            "return {}");

    private CasScript() {
    }

    /**
     * The two arguments for {@code n} keys: what each is expected to hold and what to write
     * (null: no key / leave it), and the TTLs in milliseconds ({@code <= 0}: none).
     */
    static Object[] arguments(int n, byte[] @Nullable [] expected, byte[] @Nullable [] written, long[] ttls) {
        StringBuilder header = new StringBuilder(n * 16);
        int length = 0;
        for (int i = 0; i < n; i++) {
            int e = expected[i] == null ? 0 : expected[i].length;
            int w = written[i] == null ? 0 : written[i].length;
            header.append(e).append(' ').append(w).append(' ').append(Math.max(0, ttls[i])).append(' ');
            length += e + w;
        }
        byte[] blob = new byte[length];
        int at = 0;
        for (int i = 0; i < n; i++) {
            at = append(blob, at, expected[i]);
            at = append(blob, at, written[i]);
        }
        return new Object[] {header.toString().getBytes(StandardCharsets.US_ASCII), blob};
    }

    private static int append(byte[] blob, int at, byte @Nullable [] bytes) {
        if (bytes == null) {
            return at;
        }
        System.arraycopy(bytes, 0, blob, at, bytes.length);
        return at + bytes.length;
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

package dev.quota.redis.internal.encoding;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The compare-and-swap of several bucket keys in one script: every key must hold exactly what the
 * client expects (or be absent, when it expects none); then the new states are written, each with
 * its TTL; otherwise nothing is written and the script answers what the differing keys hold, so the
 * client can compute again without another read.
 *
 * <p>What a key is expected to hold is sent as its SHA-1 ({@link StateDigest}, 40 hex characters),
 * which the script compares with {@code redis.sha1hex} of what the key holds: the client keeps a
 * digest of each state, not its bytes, and the argument is about a third the size. A collision
 * between two states of one key is no concern an attacker can steer: a state is this library's own
 * encoding of token counts and nanosecond times, never bytes a caller chooses. What is stored is
 * the state's bytes, as before the digest: instances running the script that sends the bytes and
 * ones running this one share a Redis during a rolling upgrade (two script SHAs, the same keys).
 *
 * <p>One argument, however many keys: a header of four decimal numbers per key, separated by
 * spaces (the length of the expected digest, {@code 40}, or {@code 0}: expect no key; the length of
 * the new bytes, {@code 0}: leave the key as it is; the length of the take, {@code 0}: none; the TTL
 * in milliseconds, {@code 0}: no expiry), a {@code ;}, then every key's expected digest, new bytes
 * and take, one after another. A Bucket4j state is never empty, so a length of 0 is unambiguous,
 * and the header holds only digits and spaces, so its first {@code ;} ends it. Packed so, a batch
 * of 64 five-bucket decisions is 321 parameters (the keys and the argument) instead of 1,280: the
 * Redis client encodes, copies and releases a buffer per parameter, which cost more than the
 * script. The argument is written straight into one pooled buffer of the client's allocator
 * ({@link #call}), never into a byte array of the heap.
 *
 * <p>A take ({@link StoredTake}, {@link CasKey#take}) is what a decision takes from the key: when the
 * key holds another state than expected, the script takes it from what the key holds, where that
 * leaves what Bucket4j's refill-then-consume would, and writes that instead of the client's new state, with
 * a TTL no shorter than the key had plus the take's refill; a key it cannot do so for is a
 * difference, as any. Answer: an empty list when it wrote what the client sent; {@code "+"} then,
 * for each key it took from so, its 1-based index and what it wrote there, when it wrote; else for
 * each differing key its 1-based index and what it holds ({@code ""}: no key), and nothing is
 * written.
 */
public final class CasScript {

    static final String TEXT = StoredTake.LUA + """
            local a = ARGV[1]
            local sep = string.find(a, ';', 1, true)
            local h = {}
            for n in string.gmatch(string.sub(a, 1, sep - 1), '%d+') do h[#h + 1] = n end
            local pos = sep + 1
            local bad = {}
            local new = {}
            local took = {}
            for i = 1, #KEYS do
              local el = tonumber(h[4 * i - 3])
              local nl = tonumber(h[4 * i - 2])
              local tl = tonumber(h[4 * i - 1])
              local exp = string.sub(a, pos, pos + el - 1)
              new[i] = string.sub(a, pos + el, pos + el + nl - 1)
              local t = {}
              for n in string.gmatch(string.sub(a, pos + el + nl, pos + el + nl + tl - 1), '%-?%d+') do
                t[#t + 1] = tonumber(n)
              end
              pos = pos + el + nl + tl
              local cur = redis.call('GET', KEYS[i])
              if (el == 0 and cur) or (el > 0 and (not cur or redis.sha1hex(cur) ~= exp)) then
                if tl > 0 then took[i] = take(cur, new[i], t) end
                if took[i] then
                  local ttl = tonumber(h[4 * i])
                  local left = redis.call('PTTL', KEYS[i])
                  if ttl > 0 and left >= 0 then took[i .. 'ttl'] = string.format('%.0f', math.max(ttl, left + t[7]))
                  else took[i .. 'ttl'] = '0' end
                else
                  bad[#bad + 1] = tostring(i)
                  bad[#bad + 1] = cur or ''
                end
              end
            end
            if #bad > 0 then return bad end
            local done = {}
            for i = 1, #KEYS do
              local value = took[i] or new[i]
              local ttl = took[i] and took[i .. 'ttl'] or h[4 * i]
              if value ~= '' then
                if ttl ~= '0' then redis.call('SET', KEYS[i], value, 'PX', ttl)
                else redis.call('SET', KEYS[i], value) end
              end
              if took[i] then
                if #done == 0 then done[1] = '+' end
                done[#done + 1] = tostring(i)
                done[#done + 1] = took[i]
              end
            end
            return done""";

    /** Where a call's first key is: it routes the call in a cluster. */
    public static final int FIRST_KEY = 2;
    /** The commands the script runs, as named in {@link #TEXT}. */
    private static final List<String> COMMANDS = List.of("GET", "SET", "PTTL");
    /** Key counts as Redis reads them, for the sizes a round usually has. */
    private static final String[] COUNTS = new String[64];
    private static final byte SEPARATOR = ';';

    static {
        for (int i = 0; i < COUNTS.length; i++) {
            COUNTS[i] = Integer.toString(i);
        }
    }

    private CasScript() {
    }

    /**
     * The script's text with the commands it runs named as {@code commands} maps them: for a Redis
     * whose {@code GET} or {@code SET} was renamed, mapped by the client's command mapper.
     */
    public static String text(UnaryOperator<String> commands) {
        String text = TEXT;
        for (String command : COMMANDS) {
            String name = commands.apply(command);
            if (!name.equals(command)) {
                text = text.replace("redis.call('" + command + "'", "redis.call('" + name + "'");
            }
        }
        return text;
    }

    /** The SHA-1 of a script's {@code text} in hex, as Redis names it in its script cache: what {@code EVALSHA} sends. */
    public static String sha(String text) {
        byte[] digest;
        try {
            digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-1", e);
        }
        return HexFormat.of().formatHex(digest);
    }

    /**
     * The parameters of a call on {@code keys}, as Redis reads them after the command's
     * name: the script's SHA-1 ({@code sha}, for {@code EVALSHA}; {@link #withText} makes the same
     * call an {@code EVAL}), the key count, the keys, then the one argument: the digest of what
     * each key is expected to hold ({@link CasKey#expectedHigh}) and what to write (the new states the thread sending
     * the script appended, {@link StateDigest#written()}, where {@link CasKey#writes}), and the TTLs in milliseconds ({@link CasKey#ttlMillis}, {@code <= 0}: none). The argument is a buffer of
     * {@code allocator}'s, which the client releases once the command is done; every number in it
     * is written as ASCII digits straight into it. Everything else is a string, which the client
     * encodes into a pooled buffer of its own: a byte array would cost it a wrapper and a view of
     * it for every command.
     */
    public static Object[] call(String sha, List<? extends CasKey> keys, ByteBufAllocator allocator) {
        int n = keys.size();
        Object[] call = new Object[FIRST_KEY + n + 1];
        call[0] = sha;
        call[1] = n < COUNTS.length ? COUNTS[n] : Integer.toString(n);
        for (int i = 0; i < n; i++) {
            call[FIRST_KEY + i] = keys.get(i).key;
        }
        int length = argumentLength(keys);
        ByteBuf argument = allocator.buffer(length, length);
        writeArgument(argument, keys);
        call[FIRST_KEY + n] = argument;
        return call;
    }

    /** The length in bytes of the argument of a call on {@code keys} ({@link #writeArgument}). */
    public static int argumentLength(List<? extends CasKey> keys) {
        int length = 1;
        for (int i = 0; i < keys.size(); i++) {
            CasKey key = keys.get(i);
            int e = expectedLength(key);
            int w = writtenLength(key);
            int t = takeLength(key);
            length += digits(e) + digits(w) + digits(t) + digits(Math.max(0, key.ttlMillis)) + 4 + e + w + t;
        }
        return length;
    }

    /** Writes the argument of a call on {@code keys}: the header of numbers, {@code ;}, then the bytes. */
    public static void writeArgument(ByteBuf argument, List<? extends CasKey> keys) {
        int n = keys.size();
        for (int i = 0; i < n; i++) {
            CasKey key = keys.get(i);
            number(argument, expectedLength(key));
            number(argument, writtenLength(key));
            number(argument, takeLength(key));
            number(argument, Math.max(0, key.ttlMillis));
        }
        argument.writeByte(SEPARATOR);
        byte[] written = StateDigest.local().written();
        for (int i = 0; i < n; i++) {
            CasKey key = keys.get(i);
            if (key.expects) {
                StateDigest.writeHex(argument, key.expectedHigh, key.expectedMiddle, key.expectedLow);
            }
            if (key.writes) {
                argument.writeBytes(written, key.writtenOffset, key.writtenLength);
                String take = key.take;
                if (take != null) {
                    argument.writeCharSequence(take, StandardCharsets.US_ASCII);
                }
            }
        }
    }

    /**
     * The parameters of {@code call} for {@code EVAL}: the script's {@code text} in the SHA-1's
     * place, the rest (the argument's buffer too) shared.
     */
    public static Object[] withText(Object[] call, String text) {
        Object[] eval = call.clone();
        eval[0] = text;
        return eval;
    }

    /** The argument of {@code call}: the one buffer the client releases when done with it. */
    public static ByteBuf argument(Object[] call) {
        return (ByteBuf) call[call.length - 1];
    }

    /** The length of a key's expected digest in the argument: 0 when it expects no key. */
    private static int expectedLength(CasKey key) {
        return key.expects ? StateDigest.HEX_LENGTH : 0;
    }

    /** The length of a key's new state in the argument: 0 when the script leaves the key as it is. */
    private static int writtenLength(CasKey key) {
        return key.writes ? key.writtenLength : 0;
    }

    /** The length of a key's take in the argument ({@link StoredTake}): 0 when the key is only compared. */
    private static int takeLength(CasKey key) {
        String take = key.take;
        return key.writes && take != null ? take.length() : 0;
    }

    /** How many decimal digits {@code value} (not negative) takes. */
    public static int digits(long value) {
        int digits = 1;
        for (long v = value; v >= 10; v /= 10) {
            digits++;
        }
        return digits;
    }

    /** Writes {@code value} (not negative) in decimal, then a space. */
    private static void number(ByteBuf to, long value) {
        decimal(to, value);
        to.writeByte(' ');
    }

    /** Writes {@code value} (not negative) in ASCII decimal digits, straight into {@code to}. */
    public static void decimal(ByteBuf to, long value) {
        int digits = digits(value);
        int at = to.writerIndex();
        to.ensureWritable(digits);
        long v = value;
        for (int i = at + digits - 1; i >= at; i--) {
            to.setByte(i, '0' + (int) (v % 10));
            v /= 10;
        }
        to.writerIndex(at + digits);
    }

    /** A key that held something other than expected: its index in the script's keys and its bytes (null: none). */
    public record Difference(int index,
                             // the reply's bytes, handed on to be remembered: never compared, copied or changed
                             @SuppressWarnings("ArrayRecordComponent") byte @Nullable [] holds) {
    }

    /**
     * The keys the script took a decision's tokens from although they held something else
     * ({@link StoredTake}), each with the state it wrote there; null when the reply is not such a
     * write (it wrote what the client sent for every key, or it answered differences).
     */
    public static @Nullable List<Difference> took(@Nullable List<Object> reply) {
        if (reply == null || reply.isEmpty() || !isTook(reply.get(0))) {
            return null;
        }
        List<Difference> out = new ArrayList<>(reply.size() / 2);
        for (int i = 1; i + 1 < reply.size(); i += 2) {
            int index = Integer.parseInt(new String((byte[]) reply.get(i), StandardCharsets.US_ASCII)) - 1;
            out.add(new Difference(index, (byte[]) reply.get(i + 1)));
        }
        return out;
    }

    private static boolean isTook(Object first) {
        return first instanceof byte[] bytes && bytes.length == 1 && bytes[0] == '+';
    }

    /** The differences the script answered; empty when it wrote. */
    public static List<Difference> differences(@Nullable List<Object> reply) {
        if (reply == null || reply.isEmpty() || isTook(reply.get(0))) {
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

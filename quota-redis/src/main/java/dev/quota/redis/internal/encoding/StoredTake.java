package dev.quota.redis.internal.encoding;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import org.jspecify.annotations.Nullable;

/**
 * The one place that knows, for the compare-and-swap script ({@link CasScript}), where a stored
 * state's numbers are: what lets the script take a decision's tokens from a state another instance
 * wrote since, in the same try, instead of answering it and waiting for the next one.
 *
 * <p>A stored state is {@code [format][configuration][type, format, 3n][n × (last refill, tokens,
 * rounding error)][stat format, consumed][has version, version]} (big-endian longs,
 * {@link dev.quota.core.internal.StateWire}). A take is described to the script, as decimal numbers
 * separated by spaces, as: the 1-based offset of the first bandwidth's last refill time, the
 * bandwidth count {@code n}, the offset of the consumed count, the tokens, the round's time split
 * in its signed high and unsigned low 32 bits, the milliseconds the take's tokens need to refill
 * (added to the key's TTL), the take's config version, then for each bandwidth its capacity, refill tokens, refill period in
 * nanoseconds and 1 for a greedy refill (0: by intervals).
 *
 * <p>The script applies it to a key that holds something else only when that state is shaped like
 * the one the client wrote (same length, same bytes up to the bandwidths: the same configuration).
 * At the take's config version or a newer one Bucket4j runs on the state as it is. At an older one
 * (instances that load the same file without a {@code version:} each stamp their own start, so a
 * fleet's keys are met at another instance's version all the time) Bucket4j first gives the state
 * the take's configuration, keeping usage ({@code ADDITIVE}); with the same configuration that
 * leaves every bandwidth as it is, except tokens above capacity (a forced add), which it cuts: the
 * script declines those, and writes the take's version. On
 * every bandwidth it writes what Bucket4j's refill-then-consume at the round's time leaves, or a
 * state that refills to exactly that:
 * <ul>
 *   <li>no refill due (the state written at or after the round's time), or one that stays below
 *       capacity, with the stored tokens covering the take: the stored tokens less the take, the
 *       refill time and rounding error as stored. A refill that does not reach capacity is the same
 *       in one step or two, greedy or by intervals (which credit no more than the greedy bound the
 *       script checks), so this refills later to what Bucket4j's state would;</li>
 *   <li>a greedy refill that stays below capacity, where the stored tokens alone do not cover the
 *       take (a drained key, each decision on one refilled token): refilled at the round's time as
 *       Bucket4j's refill does (the elapsed nanoseconds times the refill tokens, plus the rounding
 *       error, divided by the period in exact integers: the quotient is added, the remainder is the
 *       new rounding error), then less the take;</li>
 *   <li>a greedy refill that reaches capacity: capacity less the take, refilled at the round's
 *       time, no rounding error, as Bucket4j's refill resets it. Left at the stored time instead,
 *       the take would later be credited the refill the cap dropped, admitting over the limit;</li>
 *   <li>a greedy bandwidth at or above capacity (a forced add): its tokens less the take, refilled
 *       at the round's time, as Bucket4j's refill leaves it.</li>
 * </ul>
 * Anything else (a refill by intervals that reaches capacity, too few tokens, a number at or beyond
 * 2^53, the integers a Lua double holds exactly) and the key is answered as before, nothing
 * written. The script also adds the tokens to the consumed count, as Bucket4j's consume does.
 */
public final class StoredTake {

    /** 2^53: the integers below it are exact in a Lua double. */
    static final long EXACT = 1L << 53;
    private static final int VERSION_TAIL = 1 + 8;
    private static final int STAT = 4 + 8;
    private static final int BANDWIDTH = 3 * 8;
    private static final int GREEDY_STATE_TYPE = 3;

    private StoredTake() {
    }

    /**
     * The description of taking {@code tokens} of a spec at config {@code version} at {@code nowNanos} from a key whose new state is
     * {@code state}, the one {@code digest} appended last, at {@code offset} of its new states; null when
     * the script could not apply it (a state without a config version,
     * another layout, numbers beyond 2^53): the key is then only compared, as always.
     */
    public static @Nullable String describe(RemoteBucketState state, StateDigest digest, int offset, long tokens,
                                            long version, long nowNanos) {
        byte[] bytes = digest.written();
        int length = digest.length;
        if (state.getConfigurationVersion() == null || tokens < 1 || tokens >= EXACT || version < 0
                || version >= EXACT) {
            return null;
        }
        Bandwidth[] bandwidths = state.getConfiguration().getBandwidths();
        int n = bandwidths.length;
        int consumed = length - VERSION_TAIL - 8;
        int first = length - VERSION_TAIL - STAT - n * BANDWIDTH;
        if (first < 12 || intAt(bytes, offset + first - 4) != 3 * n
                || intAt(bytes, offset + first - 12) != GREEDY_STATE_TYPE || bytes[offset + length - VERSION_TAIL] != 1) {
            return null;
        }
        StringBuilder out = new StringBuilder(32 + 48 * n);
        out.append(first + 1).append(' ').append(n).append(' ').append(consumed + 1).append(' ').append(tokens)
                .append(' ').append(Math.floorDiv(nowNanos, 1L << 32)).append(' ').append(Math.floorMod(nowNanos, 1L << 32));
        double refillMillis = 0;
        for (Bandwidth bandwidth : bandwidths) {
            long capacity = bandwidth.getCapacity();
            long refill = bandwidth.getRefillTokens();
            long period = bandwidth.getRefillPeriodNanos();
            if (capacity < 1 || capacity >= EXACT || refill < 1 || refill >= EXACT
                    || period < 1 || period >= EXACT) {
                return null;
            }
            // by intervals the tokens come a period late at most
            refillMillis = Math.max(refillMillis, ((double) tokens * period / refill + period) / 1e6);
        }
        if (!(refillMillis < EXACT / 2)) {
            return null;
        }
        out.append(' ').append((long) Math.ceil(refillMillis) + 1).append(' ').append(version);
        for (Bandwidth bandwidth : bandwidths) {
            out.append(' ').append(bandwidth.getCapacity()).append(' ').append(bandwidth.getRefillTokens())
                    .append(' ').append(bandwidth.getRefillPeriodNanos()).append(bandwidth.isRefillIntervally() ? " 0" : " 1");
        }
        return out.toString();
    }

    private static int intAt(byte[] bytes, int at) {
        return ((bytes[at] & 0xff) << 24) | ((bytes[at + 1] & 0xff) << 16) | ((bytes[at + 2] & 0xff) << 8)
                | (bytes[at + 3] & 0xff);
    }

    /**
     * The script's functions that apply a description ({@code take(cur, new, t)}: the bytes to
     * write, or nil), part of {@link CasScript#TEXT}.
     */
    static final String LUA = """
            local W = 4294967296
            local EXACT = 9007199254740992
            local ZERO = string.rep(string.char(0), 8)
            local function u32(s, p)
              local a, b, c, d = string.byte(s, p, p + 3)
              return ((a * 256 + b) * 256 + c) * 256 + d
            end
            local function hi32(s, p)
              local hi = u32(s, p)
              if hi >= 2147483648 then hi = hi - W end
              return hi
            end
            local function i64(s, p)
              local hi = hi32(s, p)
              if hi >= 2097152 or hi < -2097152 then return nil end
              return hi * W + u32(s, p + 4)
            end
            local function be64(v)
              local hi = math.floor(v / W)
              local lo = v - hi * W
              return string.char(math.floor(hi / 16777216) % 256, math.floor(hi / 65536) % 256,
                math.floor(hi / 256) % 256, hi % 256, math.floor(lo / 16777216) % 256,
                math.floor(lo / 65536) % 256, math.floor(lo / 256) % 256, lo % 256)
            end
            local function be32(v)
              return string.char(math.floor(v / 16777216) % 256, math.floor(v / 65536) % 256,
                math.floor(v / 256) % 256, v % 256)
            end
            local function take(cur, new, t)
              if not cur or #cur ~= #new then return nil end
              local d, n, sc, k = t[1], t[2], t[3], t[4]
              if string.sub(cur, 1, d - 1) ~= string.sub(new, 1, d - 1) then return nil end
              local version = string.byte(cur, sc + 8) == 1 and i64(cur, sc + 9)
              if not version then return nil end
              local older = version < t[8]
              local now = be32((t[5] + W) % W) .. be32(t[6])
              local out = {string.sub(cur, 1, d - 1)}
              for b = 0, n - 1 do
                local p = d + 24 * b
                local c, rt, per, greedy = t[9 + 4 * b], t[10 + 4 * b], t[11 + 4 * b], t[12 + 4 * b]
                local dh = t[5] - hi32(cur, p)
                if dh >= 1048576 or dh <= -1048576 then return nil end
                local dt = dh * W + (t[6] - u32(cur, p + 4))
                local s = i64(cur, p + 8)
                local re = i64(cur, p + 16)
                if not s or not re or re < 0 or (older and s > c) then return nil end
                local at, left, err = string.sub(cur, p, p + 7), s, string.sub(cur, p + 16, p + 23)
                if dt > 0 then
                  if greedy == 1 and s >= c then
                    at = now
                  else
                    local x = dt * rt + re
                    local y = (c - s) * per
                    if x >= EXACT or y >= EXACT then return nil end
                    if x >= y then
                      if greedy ~= 1 then return nil end
                      at, left, err = now, c, ZERO
                    elseif s < k and greedy == 1 then
                      local q = math.floor(x / per)
                      local r = x - q * per
                      if r < 0 then q, r = q - 1, r + per elseif r >= per then q, r = q + 1, r - per end
                      at, left, err = now, s + q, be64(r)
                    end
                  end
                end
                if left < k then return nil end
                out[#out + 1] = at .. be64(left - k) .. err
              end
              local used = i64(cur, sc)
              if not used or used < 0 or used + k >= EXACT then return nil end
              local tail = older and (string.char(1) .. be64(t[8])) or string.sub(cur, sc + 8)
              out[#out + 1] = string.sub(cur, d + 24 * n, sc - 1) .. be64(used + k) .. tail
              return table.concat(out)
            end
            """;
}

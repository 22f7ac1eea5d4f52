package dev.quota.bench;

import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Baseline (a), layered: the transfer decision's five buckets ({@link TransferLimits}) checked and
 * taken in one Lua script ({@code layered_buckets.lua}), all or nothing, one EVALSHA per decision
 * through the instance's Redisson client. The floor of a five-bucket decision: one round trip, no
 * client-side state, the same token-bucket arithmetic as the one-bucket floor ({@link LuaContender}).
 *
 * <p>A customer's four buckets share one hash tag ({@code {<namespace>:lyr:<customer>}}); the
 * shared bucket cannot, being every customer's. That is fine on the standalone redis-server the
 * bench runs; on a cluster the script would be refused (CROSSSLOT), and a cluster-safe variant
 * would take the shared bucket in a call of its own. The bench does not need one.
 */
final class LayeredLuaContender implements Contender {

    static final String SCRIPT = LuaContender.script("layered_buckets.lua");
    /** Keys outlive the time they need to refill fully by this margin (milliseconds), as the store's do. */
    static final long TTL_MARGIN_MILLIS = 60_000;

    /** Where the arguments that change per call sit in {@link #template}. */
    private static final int NOW = 0;
    private static final int DAY_TTL = 13;
    private static final int DAY_END = 17;
    private static final int AMOUNT_TTL = 34;
    private static final int AMOUNT_END = 38;

    private final RScript script;
    private final String sha;
    private final String namespace;
    private final String sharedKey;
    private final Object[] template;
    private volatile Day day = new Day(0, 0, "", "");

    /** The calendar day (in {@link TransferLimits#ZONE}) the calendar buckets are keyed by. */
    private record Day(long startSecond, long endMicros, String start, String end) {
    }

    LayeredLuaContender(RedissonClient client, TransferLimits limits, String namespace) {
        this.script = client.getScript(StringCodec.INSTANCE);
        this.sha = script.scriptLoad(SCRIPT);
        this.namespace = namespace + ":lyr:";
        this.sharedKey = this.namespace + "s:transfers";
        long second = 1_000_000;
        long hour = TransferLimits.HOUR.toNanos() / 1_000;
        long minute = TransferLimits.PER_CUSTOMER_PERIOD.toNanos() / 1_000;
        long planTtl = Math.max(limits.burst() * 1_000 / limits.burstRefill(), hour / 1_000) + TTL_MARGIN_MILLIS;
        // per bucket: tokens, time to live (ms), limits; per limit: capacity, refill, period (us), kind.
        // The zeros are set per call: now, and the day's time to live and end.
        this.template = strings(
                0,
                1, planTtl, 2,
                limits.burst(), limits.burstRefill(), second, "g",
                limits.hourly(), limits.hourly(), hour, "i",
                1, 0, 1,
                limits.daily(), limits.daily(), 0, "c",
                1, minute / 1_000 + TTL_MARGIN_MILLIS, 1,
                limits.perCustomer(), limits.perCustomer(), minute, "g",
                1, second / 1_000 + TTL_MARGIN_MILLIS, 1,
                limits.shared(), limits.shared(), second, "g",
                limits.amount(), 0, 1,
                limits.amountDaily(), limits.amountDaily(), 0, "c");
    }

    @Override
    public Outcome acquire(int customer) {
        Instant now = Instant.now();
        long nowMicros = now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
        Day d = day(nowMicros);
        String tag = keyMarker(customer);
        List<Object> keys = List.of(tag + ":p", tag + ":d:" + d.start(), tag + ":r:transfers", sharedKey,
                tag + ":a:" + TransferLimits.CURRENCY + ":" + d.start());
        Object[] args = template.clone();
        String ttl = Long.toString((d.endMicros() - nowMicros) / 1_000 + TTL_MARGIN_MILLIS);
        args[NOW] = Long.toString(nowMicros);
        args[DAY_TTL] = ttl;
        args[DAY_END] = d.end();
        args[AMOUNT_TTL] = ttl;
        args[AMOUNT_END] = d.end();
        try {
            Long answer = script.evalSha(tag, RScript.Mode.READ_WRITE, sha, RScript.ReturnType.LONG, keys, args);
            return answer != null && answer > 0 ? Outcome.ADMITTED : Outcome.REJECTED;
        } catch (RuntimeException e) {
            return Outcome.ERROR;
        }
    }

    /** The day containing {@code nowMicros}, computed again only when a day ends. */
    private Day day(long nowMicros) {
        Day current = day;
        if (nowMicros >= current.startSecond() * 1_000_000 && nowMicros < current.endMicros()) {
            return current;
        }
        LocalDate date = Instant.ofEpochSecond(nowMicros / 1_000_000).atZone(TransferLimits.ZONE).toLocalDate();
        long start = date.atStartOfDay(TransferLimits.ZONE).toEpochSecond();
        long end = date.plusDays(1).atStartOfDay(TransferLimits.ZONE).toEpochSecond() * 1_000_000;
        Day next = new Day(start, end, Long.toString(start), Long.toString(end));
        day = next;
        return next;
    }

    /** The hash tag of a customer's keys; every key of the customer but the shared one contains it. */
    @Override
    public String keyMarker(int customer) {
        return "{" + namespace + customer + "}";
    }

    @Override
    public void close() {
        // the client belongs to the instance
    }

    private static Object[] strings(Object... values) {
        Object[] out = new Object[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = values[i].toString();
        }
        return out;
    }
}

package dev.quota.bench;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import org.redisson.api.RedissonClient;

/**
 * The demo's transfer decision as the bench sizes it: five buckets a transfer takes from together,
 * all or nothing.
 *
 * <ol>
 *   <li>the customer's plan, one bucket with two limits: a greedy burst of {@code burst} refilled
 *       {@code burstRefill} per second, and {@code hourly} per hour refilled at once (interval);
 *   <li>the plan's calendar day: {@code daily} per day in {@link #ZONE};
 *   <li>the transfers rule, per customer: {@code perCustomer} per minute, greedy;
 *   <li>the transfers rule, shared by all customers: {@code shared} per second, greedy;
 *   <li>the amount: {@code amountDaily} (minor units) per customer per currency per calendar day in
 *       {@link #ZONE}; a transfer moves {@code amount}.
 * </ol>
 *
 * <p>{@link #THROUGHPUT} is the demo's pro plan with the rule and amount limits made generous, so
 * almost every decision is admitted and throughput is the decision's cost; {@link #VARIANTS} make
 * one bucket at a time tight, to check that no bucket admits beyond its limit.
 */
record TransferLimits(long burst, long burstRefill, long hourly, long daily, long perCustomer, long shared,
                      long amountDaily, long amount) implements Workload {

    static final ZoneId ZONE = ZoneId.of("Europe/Berlin");
    static final Duration BURST_PERIOD = Duration.ofSeconds(1);
    static final Duration HOUR = Duration.ofHours(1);
    static final Duration PER_CUSTOMER_PERIOD = Duration.ofMinutes(1);
    static final Duration SHARED_PERIOD = Duration.ofSeconds(1);
    /** The currency every bench transfer is in. */
    static final String CURRENCY = "EUR";

    /** The pro plan (100 burst + 50/s, 5,000/h, 50,000/day), the rule and the amount made generous. */
    static final TransferLimits THROUGHPUT = new TransferLimits(100, 50, 5_000, 50_000, 1_000, 1_000_000,
            1_000_000, 100);

    /** One bucket made tight, the others as in {@link #THROUGHPUT}. */
    record Variant(String bucket, TransferLimits limits) {
    }

    /** Each bucket tight in turn: what the exactness phase runs. */
    static final List<Variant> VARIANTS = List.of(
            new Variant("plan burst 20 + 10/s", new TransferLimits(20, 10, 5_000, 50_000, 1_000, 1_000_000,
                    1_000_000, 100)),
            new Variant("plan hourly 30", new TransferLimits(100, 50, 30, 50_000, 1_000, 1_000_000, 1_000_000, 100)),
            new Variant("plan daily 25", new TransferLimits(100, 50, 5_000, 25, 1_000, 1_000_000, 1_000_000, 100)),
            new Variant("rule per customer 15/min", new TransferLimits(100, 50, 5_000, 50_000, 15, 1_000_000,
                    1_000_000, 100)),
            new Variant("rule shared 40/s", new TransferLimits(100, 50, 5_000, 50_000, 1_000, 40, 1_000_000, 100)),
            new Variant("amount 1,000/day, 100 a transfer", new TransferLimits(100, 50, 5_000, 50_000, 1_000,
                    1_000_000, 1_000, 100)));

    /**
     * The most one customer may be admitted over {@code windowNanos} ending at {@code end}: the
     * smallest of what its own four buckets allow (the shared one is checked over all customers).
     */
    long perCustomerAllowed(long windowNanos, Instant end) {
        long days = calendarDays(windowNanos, end);
        long allowed = LimitSpec.greedyAllowed(burst, burstRefill, BURST_PERIOD, windowNanos);
        allowed = Math.min(allowed, hourly * (1 + windowNanos / HOUR.toNanos()));
        allowed = Math.min(allowed, daily * days);
        allowed = Math.min(allowed, LimitSpec.greedyAllowed(perCustomer, perCustomer, PER_CUSTOMER_PERIOD, windowNanos));
        return Math.min(allowed, amountDaily / amount * days);
    }

    /** The most all customers together may be admitted over {@code windowNanos}: the shared bucket. */
    long sharedAllowed(long windowNanos) {
        return LimitSpec.greedyAllowed(shared, shared, SHARED_PERIOD, windowNanos);
    }

    /** Calendar days in {@link #ZONE} that the window ending at {@code end} touches: 1, or 2 across midnight. */
    static long calendarDays(long windowNanos, Instant end) {
        LocalDate last = end.atZone(ZONE).toLocalDate();
        LocalDate first = end.minusNanos(windowNanos).atZone(ZONE).toLocalDate();
        return ChronoUnit.DAYS.between(first, last) + 1;
    }

    @Override
    public Contender create(Kind kind, RedissonClient client, String namespace) {
        return kind.create(client, this, namespace);
    }

    /**
     * Per customer as {@link Tally#exactness}, against {@link #perCustomerAllowed}; then the
     * customers together against the shared bucket: admitted beyond it counts as one more over.
     */
    /** The plan's bucket, its Berlin day, the rule's per-customer bucket and the amount's day; the shared one aside. */
    @Override
    public int keysPerCustomer(Kind kind) {
        return 4;
    }

    @Override
    public Tally.Exactness exactness(Kind kind, Tally tally, long windowNanos, int from, int to) {
        return exactness(tally, windowNanos, Instant.now(), from, to);
    }

    Tally.Exactness exactness(Tally tally, long windowNanos, Instant end, int from, int to) {
        long cap = perCustomerAllowed(windowNanos, end);
        long totalAdmitted = 0;
        long totalAllowed = 0;
        int over = 0;
        long worstExcess = 0;
        for (int c = from; c < to; c++) {
            long admitted = tally.admitted(c);
            long allowed = Math.min(tally.requests(c), cap);
            totalAdmitted += admitted;
            totalAllowed += allowed;
            if (admitted > allowed) {
                over++;
                worstExcess = Math.max(worstExcess, admitted - allowed);
            }
        }
        long sharedCap = sharedAllowed(windowNanos);
        if (totalAdmitted > sharedCap) {
            over++;
            worstExcess = Math.max(worstExcess, totalAdmitted - sharedCap);
        }
        return new Tally.Exactness(totalAdmitted, Math.min(totalAllowed, sharedCap), over, worstExcess);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "plan %d burst + %d/s and %d/h, %d/day; transfers %d/min per customer, "
                        + "%d/s shared; %d per day per currency, %d a transfer", burst, burstRefill, hourly, daily,
                perCustomer, shared, amountDaily, amount);
    }
}

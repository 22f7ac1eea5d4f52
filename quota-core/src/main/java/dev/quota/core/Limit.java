package dev.quota.core;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One token bucket limit: a capacity and how it refills.
 *
 * <p>Capacity 20 with {@code Refill.greedy(10, 1s)}: a burst of 20 requests, then 10 per second.
 * A request is admitted only when every limit that applies to it has enough tokens.
 *
 * @param name     identifies the limit within its plan or rule ({@code burst}, {@code daily});
 *                 lower-case letters, digits, {@code -} and {@code _}
 * @param capacity the most tokens the bucket holds, {@code >= 1}
 * @param refill   how tokens come back
 */
public record Limit(String name, long capacity, Refill refill) {

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");

    /** @throws IllegalArgumentException if the name is malformed or {@code capacity < 1} */
    public Limit {
        requireName(name, "limit name");
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1 but was " + capacity);
        }
        Objects.requireNonNull(refill, "refill");
    }

    /** This limit with capacity and refill tokens multiplied by {@code factor}, at least 1 each. */
    public Limit scaled(double factor) {
        if (factor == 1.0) {
            return this;
        }
        long scaledCapacity = Math.max(1, Math.round(capacity * factor));
        Refill scaledRefill = refill;
        if (refill instanceof Refill.Greedy g) {
            scaledRefill = Refill.greedy(Math.max(1, Math.round(g.tokens() * factor)), g.period());
        } else if (refill instanceof Refill.Interval i) {
            scaledRefill = Refill.interval(Math.max(1, Math.round(i.tokens() * factor)), i.period());
        }
        return new Limit(name, scaledCapacity, scaledRefill);
    }

    /**
     * Checks a plan, rule or limit name.
     *
     * @throws IllegalArgumentException if it is not 1-63 of {@code [a-z0-9_-]} starting with a letter or digit
     */
    static String requireName(String name, String what) {
        Objects.requireNonNull(name, what);
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " must match [a-z0-9][a-z0-9_-]{0,62} but was \"" + name + "\"");
        }
        return name;
    }

    /** Whether {@code name} is a valid plan, rule or limit name. */
    public static boolean isValidName(String name) {
        return name != null && NAME.matcher(name).matches();
    }
}

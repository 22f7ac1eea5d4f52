package dev.quota.core.spi;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Set;

/**
 * The instance that takes a lease, as a lease set records it, and the instances it knows dead: what
 * lets a take from a lease set free, in the same atomic step, the slots of instances that died
 * holding them, long before their deadline.
 *
 * <p>A slot taken with a {@code tag} records it beside its deadline. A later take from the same
 * lease set whose holder lists that tag in {@code deadTags} frees the slot first, then takes what
 * it needs. A slot recorded without a tag (taken by an instance without a registry, or written
 * before slots had tags) is held until its deadline, as is one whose tag is not listed dead.
 *
 * <p>Instance A (tag 17) holds 3 of 5 slots and is killed; once the instance registry has declared
 * it dead, instance B takes with {@code deadTags = {17}}: the 3 slots are free again and B takes
 * one, 4 left, in the one store call of the decision.
 *
 * <p>The tags come from the instance registry ({@link #tagOf}); {@link #NONE} is what every take
 * carries where none is wired (a single instance, the in-JVM store): nothing changes there.
 *
 * @param tag      the tag recorded in the slots this take holds, 0 for none (then they are held
 *                 until their deadline whatever happens to this instance); at most 56 bits
 * @param deadTags the tags of instances known dead, whose slots this take frees; never 0
 */
public record LeaseHolder(long tag, Set<Long> deadTags) {

    /** No tag, nobody known dead: leases are held until given back or their deadline. */
    public static final LeaseHolder NONE = new LeaseHolder(0, Set.of());

    /** The bits of a tag: a slot stores it in one word beside a marker of the stored form. */
    public static final long TAG_MASK = (1L << 56) - 1;

    /**
     * @throws IllegalArgumentException if the tag is outside 0 to {@link #TAG_MASK}, or a dead tag
     *                                  is 0 or outside it
     */
    public LeaseHolder {
        deadTags = Set.copyOf(deadTags);
        if ((tag & ~TAG_MASK) != 0) {
            throw new IllegalArgumentException("tag must be 0 to 2^56 - 1 but was " + tag);
        }
        for (long dead : deadTags) {
            if (dead == 0 || (dead & ~TAG_MASK) != 0) {
                throw new IllegalArgumentException("a dead tag must be 1 to 2^56 - 1 but was " + dead);
            }
        }
    }

    /** Whether a slot recorded with {@code slotTag} is held by an instance known dead. */
    public boolean heldByDead(long slotTag) {
        return slotTag != 0 && !deadTags.isEmpty() && deadTags.contains(slotTag);
    }

    /**
     * The tag of the instance registered as {@code instanceId}: 56 bits of its SHA-256, never 0, the
     * same on every instance. Two of a thousand instances share one with a chance below 1 in 10^10.
     */
    public static long tagOf(String instanceId) {
        byte[] hash;
        try {
            hash = MessageDigest.getInstance("SHA-256").digest(instanceId.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
        long tag = 0;
        for (int i = 0; i < 7; i++) {
            tag = (tag << 8) | (hash[i] & 0xffL);
        }
        return tag == 0 ? 1 : tag;
    }
}

package dev.quota.core.internal;

import dev.quota.core.spi.BucketKey;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * Builds bucket keys. Identities (customer ids, client IPs, currencies) are hashed, so a caller
 * cannot reach another customer's key, another namespace, or pick a Redis Cluster slot: the
 * hashed part is base64url (no {@code {}}, no {@code :}); names are validated config names.
 *
 * <p>Layout: {@code <prefix>:p:<id>} (plan), {@code <prefix>:r:<rule>:<id>} (rule, per customer),
 * {@code <prefix>:s:<rule>} (rule, shared), {@code <prefix>:a:<amounts>:<id+qualifier>},
 * {@code <prefix>:f:<client address>} (failed API-key lookups); calendar limits append
 * {@code :<limit>:<window start epoch second>}.
 */
public final class Keys {

    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9_.-]{1,32}");
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

    private final String prefix;
    private final IdHashes customerHashes = new IdHashes(Keys::hash, IdHashes.MAX);

    /** @throws IllegalArgumentException if the prefix is not 1-32 of {@code [A-Za-z0-9_.-]} */
    public Keys(String prefix) {
        if (!PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException("key prefix must match [A-Za-z0-9_.-]{1,32} but was \"" + prefix + "\"");
        }
        this.prefix = prefix;
    }

    /** The key prefix, e.g. {@code quota}. */
    public String prefix() {
        return prefix;
    }

    /** The plan bucket of a customer; the plan name is not part of it so a tier change keeps usage. */
    public String plan(String customerId) {
        return prefix + ":p:" + customerHashes.of(customerId);
    }

    /** A rule's per-customer bucket. */
    public String rule(String rule, String customerId) {
        return prefix + ":r:" + rule + ":" + customerHashes.of(customerId);
    }

    /** A rule's bucket shared by all customers. */
    public String shared(String rule) {
        return prefix + ":s:" + rule;
    }

    /** An amount bucket of a customer for one qualifier (a currency). */
    public String amount(String amounts, String customerId, String qualifier) {
        return prefix + ":a:" + amounts + ":" + hash(customerId + '\u0000' + qualifier);
    }

    /** The failed API-key lookups of one client address (or IPv6 network). */
    public String failedKeys(String clientAddress) {
        return prefix + ":f:" + hash(clientAddress);
    }

    /** The key of one calendar window of a limit under {@code base}. */
    public static BucketKey window(String base, String limit, long windowStartEpochSecond) {
        return new BucketKey(base + ":" + limit + ":" + windowStartEpochSecond);
    }

    /** 128 bits of SHA-256, base64url: 22 characters from {@code [A-Za-z0-9_-]}. */
    static String hash(String identity) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(identity.getBytes(StandardCharsets.UTF_8));
            return B64.encodeToString(java.util.Arrays.copyOf(digest, 16));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java runtime", e);
        }
    }
}

package dev.quota.jaxrs;

/**
 * A request body that carries an amount for {@link AmountLimit}: a transfer's currency and value
 * in minor units. Implemented by the application's entity type, read by the quota module once the
 * runtime has parsed the body, on every Jakarta REST runtime.
 *
 * <pre>{@code
 * public record TransferRequest(String from, String to, String currency, long amountMinor) implements QuotaAmount {
 *     public String quotaQualifier() { return currency; }
 *     public long quotaAmount() { return amountMinor; }
 * }
 * }</pre>
 */
public interface QuotaAmount {

    /**
     * What the amount is counted per, such as an ISO 4217 currency code ({@code EUR}); 1 to 32 of
     * {@code [A-Za-z0-9_.-]}, case-sensitive. Null or malformed: the request is answered 400.
     */
    String quotaQualifier();

    /** The amount in the limit's unit (for money: minor units). Below 1: the request is answered 400. */
    long quotaAmount();
}

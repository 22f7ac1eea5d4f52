package dev.quota.example;

import dev.quota.jaxrs.QuotaAmount;
import jakarta.json.bind.annotation.JsonbTransient;

/**
 * A transfer as the client sends it: {@code {"from":"ACC-1","to":"ACC-2","amountMinor":12500,
 * "currency":"EUR"}}. Carries its amount for the quota filter ({@link QuotaAmount}): 125.00 EUR
 * counts 12500 against the customer's daily EUR limit.
 */
public class TransferRequest implements QuotaAmount {

    private String from = "";
    private String to = "";
    private long amountMinor;
    private String currency = "";

    /** For JSON-B. */
    public TransferRequest() {
    }

    @Override
    @JsonbTransient
    public String quotaQualifier() {
        return currency;
    }

    @Override
    @JsonbTransient
    public long quotaAmount() {
        return amountMinor;
    }

    public String getFrom() {
        return from;
    }

    public void setFrom(String from) {
        this.from = from;
    }

    public String getTo() {
        return to;
    }

    public void setTo(String to) {
        this.to = to;
    }

    public long getAmountMinor() {
        return amountMinor;
    }

    public void setAmountMinor(long amountMinor) {
        this.amountMinor = amountMinor;
    }

    public String getCurrency() {
        return currency;
    }

    public void setCurrency(String currency) {
        this.currency = currency;
    }
}

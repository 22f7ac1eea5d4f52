package dev.quota.demo;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quota.jaxrs.QuotaAmount;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A transfer as the client asked for it, checked field by field:
 * {@code {"from":"ACC-1001","to":"ACC-2001","amount":"125.00","currency":"EUR"}}. It carries its
 * amount for the quota module ({@link QuotaAmount}): 125.00 EUR counts 12500 against the customer's
 * daily EUR limit.
 *
 * @param from        the debited account
 * @param to          the credited account, not {@code from}
 * @param amountMinor the amount in minor units, {@code > 0}: "125.00" is 12500
 * @param currency    the debited account's currency: EUR, GBP or USD
 */
record TransferRequest(String from, String to, long amountMinor, String currency) implements QuotaAmount {

    @Override
    public String quotaQualifier() {
        return currency;
    }

    @Override
    public long quotaAmount() {
        return amountMinor;
    }

    /** The largest body read: 16 KB. A transfer needs about 80 bytes. */
    static final int MAX_BODY_BYTES = 16 * 1024;
    /** The currencies a transfer may be made in, each with its own amount limits. */
    static final List<String> CURRENCIES = List.of("EUR", "USD", "GBP");
    /** 1,000,000,000.00: far above any limit, far below overflow. */
    static final BigDecimal MAX_AMOUNT = new BigDecimal("1000000000.00");

    private static final Set<String> FIELDS = Set.of("from", "to", "amount", "currency");
    private static final Pattern DECIMAL = Pattern.compile("[+-]?[0-9]{1,20}(\\.[0-9]{1,20})?");
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /**
     * The result of checking a body: the request, or every problem found.
     *
     * @param request the transfer when {@code errors} is empty, else null
     * @param errors  one per bad field, in field order
     */
    record Checked(@Nullable TransferRequest request, List<Problem.FieldError> errors) {
    }

    /**
     * Reads at most {@link #MAX_BODY_BYTES} of {@code body} and checks it.
     *
     * @throws JsonProcessingException if the body is not JSON (answered 400 by {@link JsonExceptionMapper})
     * @throws IOException             if the body cannot be read
     */
    static Checked read(InputStream body, Accounts accounts) throws IOException {
        byte[] bytes = body.readNBytes(MAX_BODY_BYTES + 1);
        if (bytes.length > MAX_BODY_BYTES) {
            return failed("body", "must be at most " + MAX_BODY_BYTES + " bytes");
        }
        JsonNode root = JSON.readTree(bytes);
        if (root == null || !root.isObject()) {
            return failed("body", "must be a JSON object such as "
                    + "{\"from\":\"ACC-1001\",\"to\":\"ACC-2001\",\"amount\":\"125.00\",\"currency\":\"EUR\"}");
        }
        List<Problem.FieldError> errors = new ArrayList<>();
        String from = account(root, "from", accounts, errors);
        String to = account(root, "to", accounts, errors);
        if (from != null && from.equals(to)) {
            errors.add(new Problem.FieldError("to", "must differ from from"));
            to = null;
        }
        Long amount = amount(root, errors);
        String currency = currency(root, errors);
        if (from != null && currency != null && !accounts.find(from).currency().equals(currency)) {
            // the daily cap is per currency: a transfer in another currency than the account's would
            // let a customer multiply it by switching currencies
            errors.add(new Problem.FieldError("currency", "must be the debited account's currency, "
                    + accounts.find(from).currency()));
            currency = null;
        }
        for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                errors.add(new Problem.FieldError(clip(name), "unknown field (allowed: from, to, amount, currency)"));
            }
        }
        if (!errors.isEmpty() || from == null || to == null || amount == null || currency == null) {
            return new Checked(null, errors);
        }
        return new Checked(new TransferRequest(from, to, amount, currency), List.of());
    }

    private static @Nullable String account(JsonNode root, String field, Accounts accounts,
                                            List<Problem.FieldError> errors) {
        String id = text(root, field, "an account id such as \"ACC-1001\"", errors);
        if (id == null) {
            return null;
        }
        if (!Accounts.ID.matcher(id).matches()) {
            errors.add(new Problem.FieldError(field, "must be an account id such as \"ACC-1001\""));
            return null;
        }
        if (accounts.find(id) == null) {
            errors.add(new Problem.FieldError(field, "no such account"));
            return null;
        }
        return id;
    }

    private static @Nullable Long amount(JsonNode root, List<Problem.FieldError> errors) {
        String text = text(root, "amount", "a decimal string such as \"125.00\"", errors);
        if (text == null) {
            return null;
        }
        String error = null;
        BigDecimal amount = DECIMAL.matcher(text).matches() ? new BigDecimal(text) : null;
        if (amount == null) {
            error = "must be a decimal string such as \"125.00\"";
        } else if (amount.signum() <= 0) {
            error = "must be greater than 0";
        } else if (amount.scale() > 2) {
            error = "must have at most 2 decimals";
        } else if (amount.compareTo(MAX_AMOUNT) > 0) {
            error = "must be at most " + MAX_AMOUNT.toPlainString();
        }
        if (error != null) {
            errors.add(new Problem.FieldError("amount", error));
            return null;
        }
        return amount.movePointRight(2).longValueExact();
    }

    private static @Nullable String currency(JsonNode root, List<Problem.FieldError> errors) {
        String currency = text(root, "currency", "one of EUR, GBP, USD", errors);
        if (currency != null && !CURRENCIES.contains(currency)) {
            errors.add(new Problem.FieldError("currency", "must be one of EUR, GBP, USD"));
            return null;
        }
        return currency;
    }

    /** The member as a string; an error (and null) when it is missing or not a string. */
    private static @Nullable String text(JsonNode root, String field, String expected,
                                         List<Problem.FieldError> errors) {
        JsonNode node = root.get(field);
        if (node == null || node.isNull()) {
            errors.add(new Problem.FieldError(field, "is required"));
            return null;
        }
        if (!node.isTextual()) {
            // a number for the amount would invite binary rounding: money travels as a string
            errors.add(new Problem.FieldError(field, "must be " + expected + " but was a JSON " + kind(node)));
            return null;
        }
        return node.textValue();
    }

    private static String kind(JsonNode node) {
        if (node.isNumber()) {
            return "number";
        }
        if (node.isBoolean()) {
            return "boolean";
        }
        return node.isArray() ? "array" : "object";
    }

    /** A client's field name in an error, cut to 64 characters. */
    private static String clip(String name) {
        return name.length() <= 64 ? name : name.substring(0, 64) + "...";
    }

    private static Checked failed(String field, String message) {
        return new Checked(null, List.of(new Problem.FieldError(field, message)));
    }
}

package dev.quota.demo;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.Map;

/**
 * {@code GET /api/v1/rates}: the bank's public exchange rates, the one route open to anonymous
 * callers, who are limited per client address on plan {@code anonymous}.
 */
@Path("/api/v1/rates")
public final class RatesResource {

    /** Reference rates to EUR, fixed: the demo moves no money. */
    static final Map<String, String> TO_EUR = Map.of("EUR", "1.0000", "USD", "0.9210", "GBP", "1.1720");

    /** The rates as JSON: {@code {"base":"EUR","rates":{"USD":"0.9210",...}}}. */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Rates get() {
        return new Rates("EUR", TO_EUR);
    }

    /**
     * Exchange rates.
     *
     * @param base  the currency the rates convert to
     * @param rates one unit of each currency in {@code base}, four decimals
     */
    public record Rates(String base, Map<String, String> rates) {
    }
}

package dev.quota.bench.http;

import dev.quota.bench.Contender;
import dev.quota.bench.Outcome;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Response;
import java.util.HashMap;
import java.util.Map;

/**
 * The floor for the HTTP scenario: a bare request filter that maps {@code X-API-Key} to a customer
 * with a plain map (no hashing) and asks a baseline limiter, answering 429 or 503 without headers
 * or a problem body. What a quota filter costs at the least with one Redis round trip.
 */
public final class ContenderFilter implements ContainerRequestFilter {

    private final Contender contender;
    private final Map<String, Integer> customers = new HashMap<>();

    /** A filter over {@code contender}, customers {@code 0 .. count-1} by {@link LoadGenerator#apiKey}. */
    public ContenderFilter(Contender contender, int count) {
        this.contender = contender;
        for (int i = 0; i < count; i++) {
            customers.put(LoadGenerator.apiKey(i), i);
        }
    }

    @Override
    public void filter(ContainerRequestContext request) {
        String key = request.getHeaderString("X-API-Key");
        Integer customer = key == null ? null : customers.get(key);
        if (customer == null) {
            request.abortWith(Response.status(401).build());
            return;
        }
        Outcome outcome = contender.acquire(customer);
        if (outcome == Outcome.REJECTED) {
            request.abortWith(Response.status(429).build());
        } else if (outcome == Outcome.ERROR) {
            request.abortWith(Response.status(503).build());
        }
    }
}

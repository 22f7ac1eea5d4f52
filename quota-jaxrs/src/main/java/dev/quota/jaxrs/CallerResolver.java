package dev.quota.jaxrs;

import dev.quota.core.QuotaService;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.util.List;
import java.util.function.Function;

/**
 * Finds out who a request comes from. Runs in the quota filter, after authentication filters.
 *
 * <p>Callers without a credential are handled as the config's {@code identity} says: with
 * {@code missingKey: anonymous} they are counted as {@code ip:<client address>} on the
 * {@code anonymousPlan}; with {@code missingKey: reject} they get 401.
 */
@FunctionalInterface
public interface CallerResolver {

    /**
     * The caller of {@code request}.
     *
     * @param service       to look up API keys and the active config
     * @param clientAddress the client's address, for anonymous callers
     * @throws RuntimeException any failure, logged and answered 503 {@code quota check failed}
     */
    Caller resolve(ContainerRequestContext request, QuotaService service, ClientAddress clientAddress);

    /**
     * The API key in the header the config's {@code identity.header} names ({@code X-API-Key} by
     * default), looked up by {@link QuotaService#customerForApiKey}. The default resolver.
     *
     * <p>An unknown key, a key longer than 256 characters or one with characters outside visible
     * ASCII ({@code 0x21-0x7E}) is {@link Caller.Kind#UNKNOWN_KEY}; the header sent more than once
     * is {@link Caller.Kind#BAD_KEY}; an absent or empty header is a caller without a credential.
     */
    static CallerResolver apiKey() {
        return ApiKeyResolver.INSTANCE;
    }

    /**
     * The authenticated principal of the request's {@code SecurityContext}, counted as customer
     * {@code user:<name>} on the plan {@code planForPrincipal} gives for the name. A null plan
     * makes the principal {@link Caller.Kind#UNKNOWN_KEY}; no principal is a caller without a
     * credential.
     *
     * <p>{@code principal(name -> name.endsWith("@bank.example") ? "internal" : "free")}
     */
    static CallerResolver principal(Function<String, String> planForPrincipal) {
        return new PrincipalResolver(planForPrincipal);
    }

    /**
     * Asks {@code resolvers} in order and takes the first answer for a request that presented a
     * credential to it ({@link Caller#presentedCredential()}), good or bad; when none did, the
     * first resolver's answer (anonymous or missing).
     *
     * <p>{@code firstOf(principal(plans), apiKey())}: logged-in users by name, others by key.
     *
     * @throws IllegalArgumentException if {@code resolvers} is empty
     */
    static CallerResolver firstOf(CallerResolver... resolvers) {
        if (resolvers.length == 0) {
            throw new IllegalArgumentException("firstOf needs at least one resolver but was given none");
        }
        return new FirstOfResolver(List.of(resolvers));
    }
}

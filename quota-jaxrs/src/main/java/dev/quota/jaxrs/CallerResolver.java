package dev.quota.jaxrs;

import dev.quota.core.Credential;
import dev.quota.core.Identity;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.util.List;

/**
 * Reads what a request presents to say who it is: an API key, an authenticated principal, or
 * nothing. Only reads: judging the credential (looking the key up, counting guesses, the anonymous
 * plan, allow-lists) is the service's {@link dev.quota.core.QuotaService#identify}. Runs in the quota
 * filter, after authentication filters.
 */
@FunctionalInterface
public interface CallerResolver {

    /**
     * The credential of {@code request}.
     *
     * @param identity the active config's identity settings (the key header's name)
     * @throws RuntimeException any failure, logged and answered 503 {@code quota-check-failed}
     */
    Credential resolve(ContainerRequestContext request, Identity identity);

    /**
     * The API key in the header the config's {@code identity.header} names ({@code X-API-Key} by
     * default). The default resolver. The header sent more than once is
     * {@link Credential#ambiguous()}; an absent or empty header is {@link Credential#none()}.
     */
    static CallerResolver apiKey() {
        return ApiKeyResolver.INSTANCE;
    }

    /**
     * The authenticated principal of the request's {@code SecurityContext}; none when there is no
     * principal. The service maps it to a customer through its customer directory, or, when the
     * directory does not know it, to {@code user:<name>} on the config's {@code identity.principalPlan}.
     */
    static CallerResolver principal() {
        return PrincipalResolver.INSTANCE;
    }

    /**
     * Asks {@code resolvers} in order and takes the first credential one of them finds
     * ({@link Credential#none()} when none does).
     *
     * <p>{@code firstOf(principal(), apiKey())}: logged-in users by name, others by key.
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

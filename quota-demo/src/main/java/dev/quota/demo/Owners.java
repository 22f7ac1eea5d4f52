package dev.quota.demo;

import dev.quota.core.Customer;
import dev.quota.jaxrs.QuotaFeature;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import org.jspecify.annotations.Nullable;

/**
 * Who may touch which account: an account is readable and debitable only by the customer who holds
 * it. Anonymous callers get the public routes only (401 elsewhere); another customer's account is
 * 403, with the same answer whether it exists or not beyond its id's shape.
 */
final class Owners {

    private Owners() {
    }

    /** The identified customer of the request; 401 problem for an anonymous caller. */
    static Customer customer(ContainerRequestContext request, @Nullable String instance) {
        Customer customer = QuotaFeature.customer(request);
        if (customer == null) {
            throw new IllegalStateException("the quota filter did not run for this request");
        }
        if (customer.kind() != Customer.Kind.ACCOUNT) {
            throw new WebApplicationException(new Problem("urn:quota-demo:problem:customer-required", "Unauthorized",
                    401, "Accounts and transfers need an API key (header X-API-Key).", instance, null)
                    .toResponse());
        }
        return customer;
    }

    /** The account if {@code customer} holds it; 403 problem otherwise (also for one that does not exist). */
    static Account owned(Accounts accounts, String id, Customer customer, @Nullable String instance) {
        Account account = Accounts.ID.matcher(id).matches() ? accounts.find(id) : null;
        if (account == null || !account.owner().equals(customer.id())) {
            throw new WebApplicationException(new Problem("urn:quota-demo:problem:not-your-account", "Forbidden", 403,
                    "This account is not held by the calling customer.", instance, null).toResponse());
        }
        return account;
    }
}

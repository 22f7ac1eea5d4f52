package dev.quota.jaxrs;

import dev.quota.core.Customer;
import dev.quota.core.Identity;
import dev.quota.core.QuotaService;
import jakarta.ws.rs.container.ContainerRequestContext;

/** The caller for a request without a credential, as the config's {@code identity} says. */
final class Anonymous {

    private Anonymous() {
    }

    static Caller caller(ContainerRequestContext request, QuotaService service, ClientAddress clientAddress) {
        Identity identity = service.config().identity();
        if (identity.missingKey() == Identity.MissingKey.REJECT) {
            return Caller.missing();
        }
        String address = clientAddress.of(request);
        if (address == null || address.isEmpty()) {
            address = "unknown";
        }
        return Caller.anonymous(Customer.of("ip:" + address, identity.anonymousPlan()));
    }
}

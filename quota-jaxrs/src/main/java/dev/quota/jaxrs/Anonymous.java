package dev.quota.jaxrs;

import dev.quota.core.Customer;
import dev.quota.core.Identity;
import dev.quota.core.QuotaService;
import dev.quota.core.net.ClientAddresses;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.net.InetAddress;

/** The caller for a request without a credential, as the config's {@code identity} says. */
final class Anonymous {

    private Anonymous() {
    }

    static Caller caller(ContainerRequestContext request, QuotaService service, ClientAddress clientAddress) {
        Identity identity = service.config().identity();
        if (identity.missingKey() == Identity.MissingKey.REJECT) {
            return Caller.missing();
        }
        if (clientAddress instanceof ForwardedClientAddress forwarded) {
            Customer customer = forwarded.anonymousCustomer(request, identity);
            if (customer != null) {
                return Caller.anonymous(customer);
            }
        }
        return Caller.anonymous(Customer.of("ip:" + group(clientAddress.of(request), identity),
                identity.anonymousPlan()));
    }

    /**
     * The bucket identity of a client address: IPv4 as it is, IPv6 as its network of
     * {@code identity.ipv6Prefix} bits ({@code 2001:db8:1:2::a} to {@code 2001:db8:1:2::/64}), so
     * one host cannot rotate through its /64 for fresh buckets; other text as it is.
     */
    static String group(String address, Identity identity) {
        if (address == null || address.isEmpty()) {
            return "unknown";
        }
        InetAddress parsed = ClientAddresses.parse(address);
        return parsed == null ? address : ClientAddresses.group(parsed, identity.ipv6Prefix());
    }
}

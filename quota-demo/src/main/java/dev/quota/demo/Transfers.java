package dev.quota.demo;

import java.security.SecureRandom;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Accepted transfers, in the memory of one instance: the most recent {@value #MAX_KEPT} are kept,
 * so a long demo cannot fill the heap.
 */
final class Transfers {

    static final int MAX_KEPT = 10_000;

    private final SecureRandom random = new SecureRandom();
    private final Map<String, Transfer> byId = new LinkedHashMap<>(16, 0.75f, false) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Transfer> eldest) {
            return size() > MAX_KEPT;
        }
    };

    /** Records an accepted transfer of {@code customer} and returns it with its new id. */
    Transfer accept(String customer, TransferRequest request) {
        byte[] id = new byte[10];
        random.nextBytes(id);
        Transfer transfer = new Transfer("tr_" + HexFormat.of().formatHex(id), customer, request.from(), request.to(),
                Money.format(request.amountMinor()), request.currency(), "accepted", Instant.now().toString());
        synchronized (byId) {
            byId.put(transfer.id(), transfer);
        }
        return transfer;
    }

    /** The transfer with {@code id} if {@code customer} made it, else null. */
    @Nullable Transfer find(String customer, String id) {
        Transfer transfer;
        synchronized (byId) {
            transfer = byId.get(id);
        }
        return transfer != null && transfer.customer().equals(customer) ? transfer : null;
    }
}

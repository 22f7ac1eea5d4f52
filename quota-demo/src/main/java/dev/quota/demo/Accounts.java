package dev.quota.demo;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The demo's accounts, fixed and in memory, and their made-up transaction history. The same
 * account id always yields the same transactions, on every instance.
 */
final class Accounts {

    /** What an account id looks like; anything else is refused before a lookup. */
    static final Pattern ID = Pattern.compile("ACC-[0-9]{4}");

    private static final Accounts DEMO = new Accounts(Map.of(
            "ACC-1001", new Account("ACC-1001", "ACME-FREE", 1_234_567, "EUR"),
            "ACC-1002", new Account("ACC-1002", "ACME-FREE", 50_000, "USD"),
            "ACC-2001", new Account("ACC-2001", "GLOBEX-PRO", 98_765_432, "USD"),
            "ACC-3001", new Account("ACC-3001", "SAV2001", 4_200_000, "GBP"),
            "ACC-4001", new Account("ACC-4001", "INITECH-ENT", 1_000_000_000, "EUR"),
            "ACC-4002", new Account("ACC-4002", "INITECH-ENT", 250_000_000, "USD")));

    private static final String[] COUNTERPARTIES = {
        "Stadtwerke Berlin", "Café Kranzler", "Deutsche Bahn", "Initech Payroll", "Globex Supplies",
        "Hotel Adlon", "Bookshop \"Am Markt\"", "Rent, Flat 3B"};
    private static final LocalDate FIRST_BOOKING = LocalDate.of(2025, 1, 2);
    private static final int TRANSACTIONS = 25;

    private final Map<String, Account> byId;

    private Accounts(Map<String, Account> byId) {
        this.byId = Map.copyOf(byId);
    }

    /** The six demo accounts ({@code ACC-1001} ... {@code ACC-4002}). */
    static Accounts demo() {
        return DEMO;
    }

    /** The account, or null when there is none with that id. */
    @Nullable Account find(String id) {
        return byId.get(id);
    }

    /** 25 transactions of the account, oldest first, the same on every call. */
    List<Transaction> transactions(Account account) {
        Random random = new Random(account.id().hashCode());
        List<Transaction> out = new ArrayList<>(TRANSACTIONS);
        LocalDate date = FIRST_BOOKING;
        for (int i = 0; i < TRANSACTIONS; i++) {
            date = date.plusDays(1 + random.nextInt(4));
            long amount = (random.nextInt(2) == 0 ? -1 : 1) * (100 + random.nextInt(250_000));
            String counterparty = COUNTERPARTIES[random.nextInt(COUNTERPARTIES.length)];
            String id = String.format("%s-%03d", account.id(), i + 1);
            out.add(new Transaction(id, date.toString(), counterparty, amount, account.currency()));
        }
        return List.copyOf(out);
    }
}

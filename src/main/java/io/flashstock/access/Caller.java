package io.flashstock.access;

import java.util.Optional;

import io.flashstock.error.FlashstockException;
import io.flashstock.web.InputRules;
import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.context.RequestScoped;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * Who is calling, as far as the business rules care: for whom a purchase is made, and which orders the caller may
 * see. The roles themselves are checked by {@code @RolesAllowed} before a resource method runs; this only refines
 * what an allowed caller gets.
 */
@RequestScoped
public class Caller {

    private final SecurityIdentity identity;
    private final JsonWebToken token;

    Caller(SecurityIdentity identity, JsonWebToken token) {
        this.identity = identity;
        this.token = token;
    }

    /**
     * The user a purchase is for. A shop names it in the body (required, trusted). A buyer buys as its token's
     * {@code sub}; a body {@code userId} other than that is 403 {@code forbidden}.
     */
    public String purchaser(String bodyUserId) {
        if (identity.hasRole(Roles.SHOP)) {
            if (bodyUserId == null) {
                throw FlashstockException.invalid("userId: is required when a shop buys for a user");
            }
            return bodyUserId;
        }
        String subject = buyer();
        if (bodyUserId != null && !bodyUserId.equals(subject)) {
            throw FlashstockException.forbidden("A buyer can only buy as the user of its token.");
        }
        return subject;
    }

    /**
     * Whose orders the caller may see: empty for admin, shop and payment (every order); the token's user for a
     * buyer, whose requests for any other order are answered as if it did not exist.
     */
    public Optional<String> orderOwner() {
        if (identity.hasRole(Roles.ADMIN) || identity.hasRole(Roles.SHOP) || identity.hasRole(Roles.PAYMENT)) {
            return Optional.empty();
        }
        return Optional.of(buyer());
    }

    /**
     * Who acts, as the movement ledger records it: the token's {@code sub} as it is (an admin's, a payment
     * provider's, a shop's), {@code unknown} for a token without one.
     */
    public String actor() {
        String subject = token.getSubject();
        return subject == null || subject.isBlank() ? "unknown" : subject;
    }

    /** A buyer's user: the token's {@code sub}, which must be a valid user id. */
    private String buyer() {
        String subject = token.getSubject();
        if (!InputRules.isUserId(subject)) {
            throw FlashstockException.forbidden("The token's subject is not a valid user id.");
        }
        return subject;
    }
}

package io.flashstock.web;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.ElementType.PARAMETER;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;
import java.time.Instant;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;

/**
 * A sale-window instant ({@code startsAt}, {@code endsAt} of {@code POST /items} and {@code PUT /items/{sku}/sale})
 * within {@link InputRules#saleInstant}'s range; null (no bound) is valid. Out of range: 400 {@code invalid-request}
 * naming the field, before anything is changed.
 */
@Documented
@Constraint(validatedBy = SaleInstant.Check.class)
@Target({ FIELD, METHOD, PARAMETER })
@Retention(RUNTIME)
public @interface SaleInstant {

    String message() default InputRules.SALE_INSTANT_MESSAGE;

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    /** Applies {@link InputRules#saleInstant}. */
    class Check implements ConstraintValidator<SaleInstant, Instant> {

        @Override
        public boolean isValid(Instant value, ConstraintValidatorContext context) {
            return InputRules.saleInstant(value);
        }
    }
}

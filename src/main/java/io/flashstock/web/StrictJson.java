package io.flashstock.web;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.quarkus.jackson.ObjectMapperCustomizer;
import jakarta.inject.Singleton;

/**
 * JSON input is taken literally: no coercion between types ({@code "1"}, {@code 1.9}, {@code true} are not
 * integers; {@code 7} is not a string), no unknown fields, no duplicate fields, no trailing content.
 * Jackson's defaults accept all of those.
 */
@Singleton
public class StrictJson implements ObjectMapperCustomizer {

    @Override
    @SuppressWarnings("deprecation") // ObjectMapper#configure(MapperFeature): the 2.x way for a shared mapper
    public void customize(ObjectMapper mapper) {
        mapper.configure(MapperFeature.ALLOW_COERCION_OF_SCALARS, false);
        mapper.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES,
                DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES,
                DeserializationFeature.FAIL_ON_TRAILING_TOKENS,
                DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS);
        mapper.disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);
        mapper.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION.mappedFeature());
        for (LogicalType type : new LogicalType[] { LogicalType.Integer, LogicalType.Float, LogicalType.Boolean,
                LogicalType.Textual, LogicalType.Enum }) {
            for (CoercionInputShape shape : CoercionInputShape.values()) {
                mapper.coercionConfigFor(type).setCoercion(shape, CoercionAction.Fail);
            }
        }
    }

    @Override
    public int priority() {
        return MINIMUM_PRIORITY; // run last: nothing may loosen these settings after us
    }
}

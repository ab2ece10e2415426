package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// listingTool adapts the handler of a tool whose result lists up to
// thousands of entries (find_references, impact) to the SDK: it encodes
// the structured result itself, once, as the call's structuredContent,
// and hands the SDK no output value. The SDK's typed path would marshal
// the output, decode it back into maps and validate those against the
// output schema on every call — for a listing of a thousand references
// several times the cost of finding them. The output is a Go value of the
// very type the declared schema is inferred from (the tool's OutputSchema
// is set to outputSchema[Out]() where it is registered), so it conforms by
// construction; TestListingToolsConform checks it. The arguments are
// still validated by the SDK against the input schema.
func listingTool[In, Out any](h func(context.Context, *sdk.CallToolRequest, In) (*sdk.CallToolResult, Out, error)) sdk.ToolHandlerFor[In, any] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, any, error) {
		res, out, err := h(ctx, req, in)
		if err != nil {
			return nil, nil, err
		}
		b, err := json.Marshal(out)
		if err != nil {
			return nil, nil, fmt.Errorf("encode the structured result: %w", err)
		}
		if res == nil {
			res = &sdk.CallToolResult{}
		}
		res.StructuredContent = json.RawMessage(b)
		if res.Content == nil {
			res.Content = []sdk.Content{&sdk.TextContent{Text: string(b)}}
		}
		return res, nil, nil
	}
}

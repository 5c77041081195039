package workflows_test

import "github.com/stretchr/testify/mock"

var (
	workflowCtx = mock.Anything
	anyInput    = mock.Anything
)
